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

/** OAuth 2.0 tokens of a Google or Microsoft connection. */
export interface OAuthTokens {
  accessToken: string;
  /** Providers may rotate it on refresh (Microsoft does): keep the latest. */
  refreshToken: string;
  /** Epoch ms the access token stops working (refresh a little before). */
  expiresAt: number;
  /** Space-separated scopes granted, as the provider reports them. */
  scope: string | null;
}

/** svc's registration with a provider (from configuration), and where that provider answers. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Base URLs: the provider's real ones by default, a local server's in tests. */
  endpoints: { authorize: string; token: string; api: string };
}

/** One connection's way to call its provider: tokens are refreshed (and handed to `onTokens`) as needed. */
export interface OAuthSession {
  client: OAuthClient;
  tokens: OAuthTokens;
  /** Called with new tokens after a refresh, before they are used: the caller seals and stores them. */
  onTokens(tokens: OAuthTokens): Promise<void>;
  /** outboundFetch(policy) in svc, so deadlines and size caps apply. */
  fetch: typeof fetch;
  /** The clock (tests move it). */
  now(): number;
  /**
   * A service account's session (an organization's delegation credential): no refresh token, new tokens
   * are granted again instead of refreshed.
   */
  renew?: (() => Promise<OAuthTokens>) | undefined;
  /** Graph with an app-only token: the mailbox acted for (`/users/{mailbox}` where a user's own token says `/me`). */
  mailbox?: string | undefined;
}

/** One provider event as busy time: `key` is the provider's id of the event (or of the occurrence). */
export interface ExternalEventBusy {
  key: string;
  /** Empty when the event does not make its calendar busy (free/transparent, cancelled, declined). */
  intervals: ExternalBusyInterval[];
}

/** What one read of a provider calendar brought. */
export interface ExternalEventsRead {
  /** true: `events` is the whole window (everything stored before is replaced). */
  full: boolean;
  events: ExternalEventBusy[];
  /** Keys of events deleted or cancelled since the last read (incremental reads only). */
  removed: string[];
  /** Opaque state for the next incremental read (a sync token, a delta link); null: read fully next time. */
  state: string | null;
}

/** The event svc writes into a host's calendar for a booking. */
export interface CalendarEventInput {
  /** The booking's icsUid: the same UID as the mail invitation. */
  uid: string;
  /** iTIP SEQUENCE, raised on every change. */
  sequence: number;
  title: string;
  description: string | null;
  location: string | null;
  start: number;
  end: number;
  /** The organizer's IANA zone (the event's display zone). */
  timeZone: string;
  organizer: { name: string | null; email: string };
  attendees: { name: string | null; email: string }[];
  /** Details hidden from those the calendar is shared with (the event type's hideCalendarEventDetails). */
  private: boolean;
  /** The provider is asked to add a meeting of its own to the event (Google: a Meet conference). */
  conference?: 'google-meet' | undefined;
}

/** An event as the provider stored it. */
export interface WrittenEvent {
  /** The provider's id of the event (Google event id, Graph event id, CalDAV resource URL). */
  id: string;
  etag: string | null;
  /** The join link of the meeting the provider keeps with the event (Google's hangoutLink), if any. */
  conferenceUrl?: string | null | undefined;
}

/**
 * Google Calendar and Microsoft Graph behind one shape. Failures throw CalendarProviderError: 401 after
 * one refresh -> unauthorized, 404/410 -> not_found (deletes of a missing event succeed), 429/503 with
 * Retry-After -> rate_limited, network/5xx -> unreachable, unexpected bodies -> invalid_data.
 */
export interface OAuthCalendarAdapter {
  /** The consent page's URL the user is sent to; `state` comes back unchanged with the code. */
  authorizationUrl(client: OAuthClient, state: string, loginHint?: string): string;
  /** Trades the code the redirect brought for tokens. */
  exchangeCode(client: OAuthClient, code: string, fetchImpl: typeof fetch, now: number): Promise<OAuthTokens>;
  /** The account's email address (to name the connection). */
  accountEmail(session: OAuthSession): Promise<string>;
  listCalendars(session: OAuthSession): Promise<ExternalCalendar[]>;
  /**
   * Busy time of one calendar within [window.from, window.to): fully when `state` is null, else the
   * changes since the read that returned it. A state the provider no longer accepts (Google's 410, an
   * expired Graph delta link) is answered with a full read, not an error.
   */
  readEvents(session: OAuthSession, calendarId: string, window: { from: number; to: number }, state: string | null): Promise<ExternalEventsRead>;
  insertEvent(session: OAuthSession, calendarId: string, event: CalendarEventInput): Promise<WrittenEvent>;
  updateEvent(session: OAuthSession, calendarId: string, eventId: string, event: CalendarEventInput): Promise<WrittenEvent>;
  deleteEvent(session: OAuthSession, calendarId: string, eventId: string): Promise<void>;
  /**
   * Asks the provider to POST to `request.address` whenever the calendar's events change (Google's
   * events.watch channel, a Graph subscription), until about `request.expiresAt`; `request.token` comes
   * back with each notification. The provider's id of the channel and its actual end come back.
   */
  watchEvents(session: OAuthSession, calendarId: string, request: PushChannelRequest): Promise<PushChannel>;
  /** Ends a channel (a channel already gone counts as ended). */
  stopWatching(session: OAuthSession, channel: PushChannel): Promise<void>;
}

export interface PushChannelRequest {
  /** svc's id for the channel (Google takes it; Graph assigns its own). */
  id: string;
  address: string;
  /** The shared secret notifications carry (Google's channel token, Graph's clientState). */
  token: string;
  expiresAt: number;
}

export interface PushChannel {
  /** The id notifications name (Google: svc's channel id; Graph: the subscription id). */
  id: string;
  /** Google's resourceId (needed to stop the channel); null for Graph. */
  resourceId: string | null;
  expiresAt: number;
}
