import type { CalendarConnectionType, CalendarSyncState } from '../../db/schema.js';
import type { ExternalBusyInterval, ExternalCalendar, PushChannel, PushChannelRequest } from '../../integrations/calendar-types.js';
import type { OutboundPolicy } from '../../integrations/outbound-fetch.js';

/** What one read of a calendar brought: iCalendar objects to expand, and objects gone. */
export interface CalendarRead {
  /** true: `objects` is the whole calendar (everything stored before is replaced). */
  full: boolean;
  objects: { key: string; ics: string }[];
  /** Objects a provider gives as busy intervals already (Google, Microsoft), by key. */
  events?: { key: string; intervals: ExternalBusyInterval[] }[];
  /** Keys of objects deleted since the last read (incremental reads only). */
  removed: string[];
  state: CalendarSyncState;
  /** The calendar's name as the provider now gives it, if it gives one. */
  name?: string | null | undefined;
}

/** What a read is given besides the connection's opened secret. */
export interface ReadContext {
  policy: OutboundPolicy;
  /** The span busy time is kept for (providers that read by window read this one). */
  window: { from: number; to: number };
  /** Stores credentials the provider renewed during the read (an OAuth refresh). */
  saveCredentials(credentials: unknown): Promise<void>;
}

/**
 * How svc reads one kind of connection (an adapter of src/integrations behind it). `credentials` is
 * the connection's opened secret; `state` is empty when a full read is wanted.
 */
export interface CalendarReader {
  /** The calendars the credentials reach, to store as sources when connecting. */
  discover(credentials: unknown, policy: OutboundPolicy): Promise<ExternalCalendar[]>;
  read(credentials: unknown, externalId: string, state: CalendarSyncState, context: ReadContext): Promise<CalendarRead>;
  /** Providers that push changes (Google, Microsoft): opens a channel for the calendar. */
  watch?(credentials: unknown, externalId: string, request: PushChannelRequest, context: Omit<ReadContext, 'window'>): Promise<PushChannel>;
  stopWatching?(credentials: unknown, channel: PushChannel, context: Omit<ReadContext, 'window'>): Promise<void>;
}

export type CalendarReaders = Partial<Record<CalendarConnectionType, CalendarReader>>;
