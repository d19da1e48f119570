import { eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { bookingAttendees } from '../../../db/schema.js';

/** Seats change booking when they are rescheduled: the attendee row (and its seatUid) moves with them. */
export async function moveAttendees(db: Db, attendeeIds: number[], bookingId: number): Promise<void> {
  if (attendeeIds.length === 0) return;
  await db.update(bookingAttendees).set({ bookingId }).where(inArray(bookingAttendees.id, attendeeIds));
}

export async function countAttendees(db: Db, bookingId: number): Promise<number> {
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(bookingAttendees).where(eq(bookingAttendees.bookingId, bookingId));
  return row?.count ?? 0;
}
