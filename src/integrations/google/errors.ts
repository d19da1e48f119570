import { CalendarProviderError } from '../calendar-types.js';
import { OutboundError } from '../outbound-fetch.js';

/** Messages are built by svc, but a transport error may quote a URL: any secret in them is cut out. */
export function redact(message: string, secrets: readonly string[]): string {
  let safe = message;
  for (const secret of secrets) if (secret.length >= 4) safe = safe.split(secret).join('[redacted]');
  return safe;
}

/** A failure before any HTTP answer (the guarded fetch's OutboundError, or any other throw). */
export function fromTransport(error: unknown, what: string, secrets: readonly string[]): CalendarProviderError {
  if (error instanceof CalendarProviderError) return error;
  if (error instanceof OutboundError) {
    const kind =
      error.reason === 'refused_address'
        ? 'refused_address'
        : error.reason === 'too_large' || error.reason === 'bad_url'
          ? 'invalid_data'
          : 'unreachable';
    const mapped = new CalendarProviderError(kind, redact(`${what}: ${error.message}`, secrets));
    mapped.cause = error;
    return mapped;
  }
  return new CalendarProviderError('unreachable', redact(`${what}: ${error instanceof Error ? error.message : String(error)}`, secrets));
}

/** Retry-After in seconds or as an HTTP date (a date is the server's wall clock, so it is compared with ours). */
export function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The `reason`s of Google's error body: {"error": {"errors": [{"domain", "reason", "message"}], "code", "message"}}. */
export function errorReasons(body: unknown): string[] {
  if (!body || typeof body !== 'object') return [];
  const error = (body as { error?: unknown }).error;
  if (!error || typeof error !== 'object') return [];
  const errors = (error as { errors?: unknown }).errors;
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((item: unknown) => {
    const reason = item && typeof item === 'object' ? (item as { reason?: unknown }).reason : undefined;
    return typeof reason === 'string' ? [reason] : [];
  });
}

/** Google's per-user and per-calendar rate limits and usage limits answer 403, not 429: they pass with time. */
const RATE_LIMIT_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded']);

/**
 * 403s that refuse one write, not the connection: the calendar is read-only to the user
 * (requiredAccessLevel) or the event belongs to another organizer (forbiddenForNonOrganizer).
 * Flagging the whole connection invalid for them would be wrong; a retry would fail the same way.
 */
const WRITE_REFUSED_REASONS = new Set(['requiredAccessLevel', 'forbiddenForNonOrganizer']);

/**
 * The failure an unexpected API status stands for. Google's reason codes are shown (they are fixed
 * words), its free-text messages are not.
 */
export function statusFailure(status: number, headers: Headers, body: unknown, what: string): CalendarProviderError {
  const reasons = errorReasons(body);
  const line = `${what}: HTTP ${status}${reasons.length > 0 ? ` (${reasons.join(', ')})` : ''}`;
  const wait = retryAfterMs(headers);
  if (status === 401) return new CalendarProviderError('unauthorized', `${line}: credentials refused`);
  if (status === 403) {
    if (reasons.some((reason) => RATE_LIMIT_REASONS.has(reason))) return new CalendarProviderError('rate_limited', line, wait);
    if (reasons.some((reason) => WRITE_REFUSED_REASONS.has(reason))) return new CalendarProviderError('invalid_data', line);
    return new CalendarProviderError('unauthorized', `${line}: access refused`);
  }
  if (status === 404 || status === 410) return new CalendarProviderError('not_found', line);
  if (status === 409 || status === 412) return new CalendarProviderError('conflict', line);
  if (status === 429) return new CalendarProviderError('rate_limited', line, wait);
  if (status === 503 && wait !== undefined) return new CalendarProviderError('rate_limited', line, wait);
  if (status >= 500 || status < 200) return new CalendarProviderError('unreachable', line);
  if (status >= 300 && status < 400) return new CalendarProviderError('unreachable', `${line}: a redirect that was not followed`);
  return new CalendarProviderError('invalid_data', line);
}
