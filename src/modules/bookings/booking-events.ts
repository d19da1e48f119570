import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { JOBS_CHANNEL } from '../../jobs/jobs.repository.js';
import { mailKindOf, queueBookingMail, type RemovedAttendee, revises } from '../mail/booking-mail.js';
import { bookingMailAudienceQuery, parseMailAudience } from '../mail/mail.repository.js';
import type { OutsideMailTally } from '../mail/mail-budget.js';
import type { MailKind } from '../mail/messages/texts.js';
import { presentBooking } from './bookings.presenter.js';
import { hasBookingEvent, insertBookingEvent, loadRecords, lockBookingByUid, type BookingRecord } from './bookings.repository.js';

/**
 * The booking as its event records it, for the mail that tells of it: the booking output, whose
 * attendees end with the other hosts, and those hosts apart, so that mail lists each person once.
 */
function bookingSnapshot(record: BookingRecord): Record<string, unknown> {
  return { ...presentBooking(record), coHosts: record.coHosts.map(({ name, email }) => ({ name, email })) };
}

/** Booking triggers of spec section 6 that bookings emit, and svc's BOOKING_REASSIGNED. */
export type BookingTrigger =
  | 'BOOKING_CREATED'
  | 'BOOKING_REQUESTED'
  | 'BOOKING_PAYMENT_INITIATED'
  | 'BOOKING_PAID'
  | 'BOOKING_RESCHEDULED'
  | 'BOOKING_CANCELLED'
  | 'BOOKING_REJECTED'
  | 'BOOKING_NO_SHOW_UPDATED'
  | 'BOOKING_REASSIGNED'
  | 'MEETING_STARTED'
  | 'MEETING_ENDED'
  | 'RECORDING_READY'
  | 'RECORDING_TRANSCRIPTION_GENERATED';

/** Changes recorded in a booking's history that no webhook trigger announces (svc's own). */
export type BookingChangeTrigger = 'GUESTS_ADDED' | 'LOCATION_CHANGED';

/** A booking event as it was recorded, for those who hear of it. */
export interface RecordedBookingEvent {
  trigger: BookingTrigger | BookingChangeTrigger;
  bookingEventId: number;
  createdAt: Date;
  record: BookingRecord;
  extra: Record<string, unknown>;
  /** Users besides the organizer the event concerns (a reassigned booking's previous host). */
  alsoUserIds: readonly number[];
}

/**
 * Who hears of a booking event in its transaction besides those it mails: the webhook subscriptions.
 * The webhooks module implements it (bookingWebhooks) and the app hands it to the booking services, so
 * that bookings run no webhook code of their own: webhooks depend on bookings, not the reverse.
 */
export interface BookingEventListener {
  /** A query of those the event may concern, run by the event's own insert (null: nobody). */
  audienceQuery(trigger: BookingTrigger | BookingChangeTrigger, record: BookingRecord, alsoUserIds: readonly number[]): SQL | null;
  /**
   * Acts on the event, given the rows its audience query found. It may answer writes of its own as
   * data-modifying CTEs (a rider): they run with the event's next statement (its mail) instead of
   * costing a round trip of their own.
   */
  hear(tx: Db, event: RecordedBookingEvent, audience: Record<string, unknown>[]): Promise<StatementRider | null | void>;
}

/** Named data-modifying CTEs (`name as (insert ...)`, comma-separated) to run within another statement's WITH. */
export type StatementRider = SQL;

/** Runs a rider on its own, when no statement was there to take it (waking the workers for jobs it queued). */
export async function runRider(tx: Db, rider: StatementRider | null): Promise<void> {
  if (rider) await tx.execute(sql`with ${rider} select pg_notify(${JOBS_CHANNEL}, '')`);
}

/**
 * Several listeners as one. Each listener's audience query gives exactly one row with column names of
 * its own: the queries run side by side in the event's insert (one row, every listener's columns), and
 * every listener hears of the event with that row.
 */
export function bookingEventListeners(listeners: readonly BookingEventListener[]): BookingEventListener {
  return {
    audienceQuery(trigger, record, alsoUserIds) {
      const queries = listeners.map((listener) => listener.audienceQuery(trigger, record, alsoUserIds)).filter((query): query is SQL => query !== null);
      if (queries.length <= 1) return queries[0] ?? null;
      return sql`select * from ${sql.join(
        queries.map((query, index) => sql`(${query}) ${sql.identifier(`listener_${index}`)}`),
        sql` cross join `,
      )}`;
    },
    async hear(tx, event, audience) {
      const riders: SQL[] = [];
      for (const listener of listeners) {
        const rider = await listener.hear(tx, event, audience);
        if (rider) riders.push(rider);
      }
      return riders.length ? sql.join(riders, sql`, `) : undefined;
    },
  };
}

/** Where a booking event is recorded: the change's transaction, and who hears of it. */
export interface BookingEventScope {
  tx: Db;
  listener: BookingEventListener;
}

/** What booking mail a change sends: by default the trigger's kind (see mailKindOf). */
export interface BookingMailOptions {
  kind?: MailKind;
  /** Nobody is mailed (a booking nobody was told of: one released unpaid; a payment, told by the confirmation). */
  silent?: boolean;
  /** A cancelled seat's holder, no longer among the attendees, who is still told. */
  removedAttendee?: RemovedAttendee;
  /** Whether guests are told; by default when the booking is accepted (see BookingChangeMail). */
  toGuests?: boolean;
  /** Counts what a request without credentials mails to people other than the hosts. */
  tally?: OutsideMailTally | null | undefined;
}

/**
 * Records what happened to a booking in the transaction that made it happen: the booking as it now
 * is, plus what the trigger adds (reasons, the booking it replaced...). In the same transaction, the
 * scope's listener hears of it (webhook subscribers: a fan-out job with the payload as of now), and everyone
 * the change concerns a message and a send job: nothing is announced that did not commit, and nothing
 * that committed can be lost. `alsoUserIds`: users besides the organizer whose subscriptions hear of
 * it, and who are mailed (a reassigned booking's previous host).
 */
export async function recordBookingEvent(
  scope: BookingEventScope,
  trigger: BookingTrigger | BookingChangeTrigger,
  record: BookingRecord,
  extra: Record<string, unknown> = {},
  alsoUserIds: readonly number[] = [],
  mail: BookingMailOptions = {},
): Promise<void> {
  const { tx, listener } = scope;
  const kind = mail.silent ? null : (mail.kind ?? mailKindOf(trigger, record, extra));
  const audienceQuery = kind ? bookingMailAudienceQuery(record.booking, alsoUserIds, revises(kind)) : null;
  const event = await insertBookingEvent(
    tx,
    {
      bookingId: record.booking.id,
      bookingUid: record.booking.uid,
      trigger,
      userId: record.booking.userId,
      eventTypeId: record.booking.eventTypeId,
      payload: { ...bookingSnapshot(record), ...extra },
    },
    // The subscriptions that may want it, and who is mailed, are read by the same statement.
    listener.audienceQuery(trigger, record, alsoUserIds),
    audienceQuery && { with: audienceQuery.bump, value: audienceQuery.audience },
  );
  const rider = (await listener.hear(tx, { trigger, bookingEventId: event.id, createdAt: event.createdAt, record, extra, alsoUserIds }, event.alongside)) ?? null;
  if (kind) {
    const toGuests = mail.toGuests ?? record.booking.status === 'accepted';
    const change = { kind, bookingEventId: event.id, record, extra, alsoUserIds, removedAttendee: mail.removedAttendee, toGuests, tally: mail.tally ?? undefined };
    const taken = await queueBookingMail(tx, change, parseMailAudience(event.partValue, record.booking), rider);
    if (!taken) await runRider(tx, rider);
  } else {
    await runRider(tx, rider);
  }
}

/**
 * A change no webhook trigger announces (guests added, location changed): recorded in the booking's
 * history all the same, heard by the scope's listener (calendar events are rewritten), and mailed to
 * hosts and attendees with the revised invitation.
 */
export async function recordBookingChange(scope: BookingEventScope, kind: 'guestsAdded' | 'locationChanged', record: BookingRecord): Promise<void> {
  await recordBookingEvent(scope, kind === 'guestsAdded' ? 'GUESTS_ADDED' : 'LOCATION_CHANGED', record, {}, [], { kind });
}

/**
 * MEETING_STARTED / MEETING_ENDED, when its scheduled job comes due: recorded (and so delivered) only
 * if the booking is still accepted at the instant the job was scheduled for, so a cancelled or moved
 * booking announces nothing. Returns whether it was recorded.
 */
export async function recordMeetingEvent(scope: BookingEventScope, bookingUid: string, trigger: 'MEETING_STARTED' | 'MEETING_ENDED', at: Date): Promise<boolean> {
  const { tx } = scope;
  const booking = await lockBookingByUid(tx, bookingUid);
  if (!booking || booking.status !== 'accepted') return false;
  const instant = trigger === 'MEETING_STARTED' ? booking.startAt : booking.endAt;
  if (instant.getTime() !== at.getTime()) return false;
  if (await hasBookingEvent(tx, bookingUid, trigger)) return false;
  const [record] = await loadRecords(tx, [booking]);
  await recordBookingEvent(scope, trigger, record!);
  return true;
}
