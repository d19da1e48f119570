/** What every calendar adapter (ICS feed, CalDAV, Google, Microsoft) speaks in. */

/** One stretch of time an outside calendar holds busy, [start, end) in epoch ms. */
export interface ExternalBusyInterval {
  start: number;
  end: number;
  /** The event's iCalendar UID: an event svc wrote for a booking carries the booking's icsUid. */
  uid: string | null;
}

/** A calendar of a connected account. */
export interface ExternalCalendar {
  /** The provider's id: the calendar's URL for CalDAV, the feed URL for an ICS feed. */
  externalId: string;
  name: string;
  primary: boolean;
  readOnly: boolean;
  /** IANA zone the calendar declares, if any. */
  timeZone: string | null;
}

/** Why a provider call failed, in terms the calendars module acts on. */
export type CalendarFailureKind =
  /** Credentials refused (401/403 after any refresh): the connection is flagged `invalid`. */
  | 'unauthorized'
  /** The calendar or feed is gone (404/410). */
  | 'not_found'
  /** Network error, timeout, 5xx, redirect loop: retried. */
  | 'unreachable'
  /** 429 or 503 with Retry-After: retried after it. */
  | 'rate_limited'
  /** The answer is not what the protocol says (not iCalendar, bad XML, too large). */
  | 'invalid_data'
  /** The URL points inside the network and private targets are not allowed. */
  | 'refused_address'
  /**
   * A conditional write lost (412: the event changed or appeared since the ETag the caller holds; or
   * another resource already holds the UID): re-read the event and retry.
   */
  | 'conflict';

export class CalendarProviderError extends Error {
  constructor(
    readonly kind: CalendarFailureKind,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'CalendarProviderError';
  }
}
