import { badRequest, conflict, type DomainError } from '../../../lib/errors.js';
import type { UnavailableReason } from '../../../scheduling/slot-check.js';

const OUT_OF_BOUNDS =
  'The event type can\'t be booked at the "start" time provided. This could be because it\'s too soon (violating the minimum booking notice) or too far in the future (outside the event\'s scheduling window). Try fetching available slots first using the GET /v2/slots endpoint and then make a booking with "start" time set to one of the available slots.';

/** The reference's answer (contract 4.6) when a start is not bookable, with svc's reason in details. */
export function bookingUnavailable(
  reason: UnavailableReason,
  context: { start: number; existingBookingUid?: string | undefined; occurrence?: number | undefined; team?: boolean | undefined },
): DomainError {
  const details = { property: 'start', start: new Date(context.start).toISOString(), ...(context.occurrence !== undefined ? { occurrence: context.occurrence } : {}) };
  switch (reason) {
    case 'in_the_past':
      return badRequest('booking_in_the_past', 'Attempting to book a meeting in the past.', details);
    case 'too_soon':
    case 'outside_booking_window':
      return badRequest('booking_time_out_of_bounds', OUT_OF_BOUNDS, details);
    case 'seats_full':
      return conflict('booking_seats_full', 'No more seats left at this seated booking.', details);
    case 'booking_limit_reached':
      return badRequest('booking_limit_reached', 'The event type has reached its booking limit for the period of "start"; fetch the available slots first.', details);
    case 'booker_limit_reached': {
      const suffix = context.existingBookingUid ? ` You can reschedule your existing booking (${context.existingBookingUid}) to a new timeslot instead.` : '';
      return badRequest(
        context.existingBookingUid ? 'booker_limit_exceeded_reschedule' : 'booker_limit_exceeded',
        `Attendee with this email can't book because the maximum number of active bookings has been reached.${suffix}`,
        details,
      );
    }
    case 'reserved':
    case 'booked':
    case 'out_of_office':
    case 'not_available':
      return badRequest(
        'slot_unavailable',
        context.team ? 'One of the hosts either already has booking at this time or is not available' : 'User either already has booking at this time or is not available',
        { ...details, cause: reason },
      );
  }
}
