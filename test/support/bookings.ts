import { randomUUID } from 'node:crypto';
import { bookingAttendees, bookings, type BookingStatus } from '../../src/db/schema.js';
import type { TestApp } from './test-app.js';

export interface BookingFixture {
  userId: number;
  eventTypeId?: number | null;
  start: string;
  end: string;
  status?: BookingStatus;
  /** Attendees to add (each holds a seat on a seated event type); default 1. */
  attendees?: number;
  uid?: string;
}

/**
 * Writes a booking straight into the store: the slot engine reads bookings as busy time, and the
 * bookings API that will create them belongs to a later issue.
 */
export async function insertBooking(api: TestApp, fixture: BookingFixture): Promise<{ id: number; uid: string }> {
  const db = api.runtime.ctx.database.db;
  const [row] = await db
    .insert(bookings)
    .values({
      uid: fixture.uid ?? randomUUID(),
      eventTypeId: fixture.eventTypeId ?? null,
      userId: fixture.userId,
      title: 'Fixture booking',
      startAt: new Date(fixture.start),
      endAt: new Date(fixture.end),
      status: fixture.status ?? 'accepted',
    })
    .returning({ id: bookings.id, uid: bookings.uid });
  const attendees = Array.from({ length: fixture.attendees ?? 1 }, (_, i) => ({ bookingId: row!.id, name: `Guest ${i + 1}`, email: `guest${i + 1}@example.com`, timeZone: 'UTC' }));
  if (attendees.length > 0) await db.insert(bookingAttendees).values(attendees);
  return row!;
}
