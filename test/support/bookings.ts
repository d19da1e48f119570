import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
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
 * Writes a booking straight into the store and announces it as the bookings code must: the slot
 * engine reads bookings as busy time, and the bookings API that will create them belongs to a later issue.
 */
export async function insertBooking(api: TestApp, fixture: BookingFixture): Promise<{ id: number; uid: string }> {
  const { database, changes } = api.runtime.ctx;
  return changes.transaction(database, async (tx, announce) => {
    const [row] = await tx
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
    if (attendees.length > 0) await tx.insert(bookingAttendees).values(attendees);
    await announce({ kind: 'busyTime', userId: fixture.userId });
    return row!;
  });
}

/** Cancels the host's bookings named by uid or by event type, announcing the change. */
export async function cancelBookings(api: TestApp, userId: number, which: { uids?: string[]; eventTypeId?: number }): Promise<void> {
  const { database, changes } = api.runtime.ctx;
  await changes.transaction(database, async (tx, announce) => {
    const filter = which.uids ? inArray(bookings.uid, which.uids) : eq(bookings.eventTypeId, which.eventTypeId!);
    await tx.update(bookings).set({ status: 'cancelled' }).where(and(eq(bookings.userId, userId), filter));
    await announce({ kind: 'busyTime', userId });
  });
}
