import { CalendarProviderError } from '../calendar-types.js';
import { OutboundError, type OutboundPolicy, outboundFetch } from '../outbound-fetch.js';

/** What the last successful fetch of a feed answered, for a conditional request. */
export interface FeedValidators {
  etag: string | null;
  lastModified: string | null;
}

export type FeedFetchResult = { kind: 'unchanged' } | { kind: 'changed'; text: string; etag: string | null; lastModified: string | null };

/**
 * A feed URL as svc stores and fetches it: `webcal://` and `webcals://` (how Apple and Google share
 * subscription links) become `https://`; anything else is returned as it is, trimmed (outboundFetch
 * refuses schemes other than http and https).
 */
export function normalizeFeedUrl(text: string): string {
  const url = text.trim();
  const scheme = /^webcals?:\/\//i.exec(url);
  return scheme ? `https://${url.slice(scheme[0].length)}` : url;
}

/**
 * Fetches an iCalendar feed, conditionally when `previous` holds validators. Failures are
 * CalendarProviderErrors whose messages name the feed's origin only: a feed URL's path is often its
 * secret.
 */
export async function fetchIcsFeed(url: string, previous: FeedValidators, policy: OutboundPolicy): Promise<FeedFetchResult> {
  const target = normalizeFeedUrl(url);
  const headers: Record<string, string> = { accept: 'text/calendar, text/plain;q=0.5, */*;q=0.1' };
  if (previous.etag) headers['if-none-match'] = previous.etag;
  if (previous.lastModified) headers['if-modified-since'] = previous.lastModified;
  let response: Response;
  try {
    response = await outboundFetch(policy)(target, { headers });
  } catch (error) {
    throw providerErrorOf(error);
  }
  const from = originOf(target);
  const status = response.status;
  if (status === 304) return { kind: 'unchanged' };
  if (status >= 200 && status < 300) {
    const text = await response.text();
    if (!/^\uFEFF?\s*BEGIN:VCALENDAR[ \t]*(\r\n|\n|\r|$)/i.test(text)) {
      throw new CalendarProviderError('invalid_data', `the feed at ${from} did not answer iCalendar (HTTP ${status}, ${response.headers.get('content-type') ?? 'no content type'})`);
    }
    return { kind: 'changed', text, etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') };
  }
  const failure = `the feed at ${from} answered HTTP ${status}`;
  if (status === 401 || status === 403) throw new CalendarProviderError('unauthorized', failure);
  if (status === 404 || status === 410) throw new CalendarProviderError('not_found', failure);
  const retryAfterMs = retryAfterOf(response.headers.get('retry-after'));
  // A 503 without Retry-After is an outage like any 5xx, retried on the usual schedule.
  if (status === 429 || (status === 503 && retryAfterMs !== undefined)) throw new CalendarProviderError('rate_limited', failure, retryAfterMs);
  throw new CalendarProviderError('unreachable', failure);
}

function providerErrorOf(error: unknown): CalendarProviderError {
  if (!(error instanceof OutboundError)) {
    return new CalendarProviderError('unreachable', `the feed could not be fetched: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (error.reason === 'refused_address') return new CalendarProviderError('refused_address', error.message);
  if (error.reason === 'too_large') return new CalendarProviderError('invalid_data', error.message);
  // outboundFetch's message for a bad URL repeats the URL, which may hold the feed's secret.
  if (error.reason === 'bad_url') return new CalendarProviderError('unreachable', 'the feed URL is not an http(s) URL');
  return new CalendarProviderError('unreachable', error.message);
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the feed URL';
  }
}

/** Retry-After in ms: delay-seconds or an HTTP date (RFC 9110 10.2.3); undefined when absent or unreadable. */
function retryAfterOf(value: string | null): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
