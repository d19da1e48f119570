import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { bookingAttendees } from '../../../db/schema.js';

/** Sets `absent` on attendees of one booking. */
export async function setAttendeesAbsent(db: Db, bookingId: number, attendeeIds: number[], absent: boolean): Promise<void> {
  if (attendeeIds.length === 0) return;
  await db
    .update(bookingAttendees)
    .set({ absent })
    .where(and(eq(bookingAttendees.bookingId, bookingId), inArray(bookingAttendees.id, attendeeIds)));
}
