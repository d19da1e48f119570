import type { Db } from '../../db/client.js';
import { presentBooking } from './bookings.presenter.js';
import { insertBookingEvent, type BookingRecord } from './bookings.repository.js';

/** Booking triggers of spec section 6 that bookings emit. */
export type BookingTrigger = 'BOOKING_CREATED' | 'BOOKING_REQUESTED' | 'BOOKING_RESCHEDULED' | 'BOOKING_CANCELLED' | 'BOOKING_REJECTED' | 'BOOKING_NO_SHOW_UPDATED';

/**
 * Records what happened to a booking in the transaction that made it happen: the booking as it now
 * is, plus what the trigger adds (reasons, the booking it replaced...). Webhook deliveries are built
 * from these records.
 */
export async function recordBookingEvent(tx: Db, trigger: BookingTrigger, record: BookingRecord, extra: Record<string, unknown> = {}): Promise<void> {
  await insertBookingEvent(tx, {
    bookingId: record.booking.id,
    bookingUid: record.booking.uid,
    trigger,
    userId: record.booking.userId,
    eventTypeId: record.booking.eventTypeId,
    payload: { ...presentBooking(record), ...extra },
  });
}
