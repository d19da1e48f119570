import type { Database, Db } from '../../db/client.js';
import { insertJob } from '../../jobs/jobs.repository.js';
import { type BookingEventListener, recordMeetingEvent } from '../bookings/booking-events.js';
import type { BookingRow } from '../bookings/bookings.repository.js';

/** The job that records MEETING_STARTED or MEETING_ENDED of one booking when its instant comes. */
export const MEETING_JOB = 'webhook.meeting';

export type MeetingTrigger = 'MEETING_STARTED' | 'MEETING_ENDED';

export interface MeetingJobPayload {
  bookingUid: string;
  trigger: MeetingTrigger;
  /** The instant the job was scheduled for (the booking's start or end then), ISO 8601. */
  at: string;
}

/**
 * Schedules the trigger at the booking's start (or end), in the caller's transaction. The dedupe key
 * (trigger, booking uid, instant) makes scheduling it again (a seat joining, a retried request) a
 * no-op. Instants already past are not scheduled.
 */
export async function scheduleMeetingJob(tx: Db, trigger: MeetingTrigger, booking: BookingRow): Promise<void> {
  const at = trigger === 'MEETING_STARTED' ? booking.startAt : booking.endAt;
  if (at.getTime() <= Date.now()) return;
  const payload: MeetingJobPayload = { bookingUid: booking.uid, trigger, at: at.toISOString() };
  await insertJob(tx, { kind: MEETING_JOB, payload, runAt: at, dedupeKey: `meeting:${trigger}:${booking.uid}:${at.getTime()}` });
}

/**
 * The job: records the trigger (and so queues its deliveries through `listener`, the booking webhooks)
 * only if the booking is still accepted at that instant.
 */
export async function runMeetingJob(database: Database, listener: BookingEventListener, payload: MeetingJobPayload): Promise<void> {
  await database.transaction((tx) => recordMeetingEvent({ tx, listener }, payload.bookingUid, payload.trigger, new Date(payload.at)));
}
