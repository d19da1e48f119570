import { CalendarProviderError, type CalendarFailureKind } from './calendar-types.js';
import { OutboundError } from './outbound-fetch.js';

/**
 * A provider error whose message holds none of `secrets` (tokens, the client secret, an authorization
 * code). Nothing svc writes into a message holds them, but the provider's own words might echo them.
 */
export function providerError(kind: CalendarFailureKind, message: string, secrets: readonly string[], retryAfterMs?: number): CalendarProviderError {
  let safe = message;
  for (const secret of secrets) {
    if (secret.length >= 8) safe = safe.split(secret).join('[redacted]');
  }
  return new CalendarProviderError(kind, safe, retryAfterMs);
}

/** A failure before any HTTP answer (the guarded fetch's OutboundError, or anything else thrown). */
export function transportError(error: unknown, what: string, secrets: readonly string[]): CalendarProviderError {
  if (error instanceof CalendarProviderError) return error;
  if (error instanceof OutboundError) {
    const kind: CalendarFailureKind =
      error.reason === 'refused_address' ? 'refused_address' : error.reason === 'too_large' || error.reason === 'bad_url' ? 'invalid_data' : 'unreachable';
    const mapped = providerError(kind, `${what}: ${error.message}`, secrets);
    mapped.cause = error;
    return mapped;
  }
  return providerError('unreachable', `${what}: ${error instanceof Error ? error.message : String(error)}`, secrets);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (measured against `now`). */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The body as a JSON object, or null (not JSON, or JSON but not an object). */
export function jsonObject(text: string): Record<string, unknown> | null {
  if (text.trim() === '') return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function stringField(record: Record<string, unknown> | null | undefined, name: string): string | null {
  const value = record?.[name];
  return typeof value === 'string' ? value : null;
}

export function objectField(record: Record<string, unknown> | null | undefined, name: string): Record<string, unknown> | null {
  const value = record?.[name];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
