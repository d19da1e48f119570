import { bookingEventListeners } from '../modules/bookings/booking-events.js';
import { calendarEventWrites } from '../modules/calendars/calendar-events.js';
import { bookingMeetingUpkeep } from '../modules/conferencing/booking-meetings.service.js';
import { bookingWebhooks } from '../modules/webhooks/webhook-emission.js';
import { bookingWorkflows } from '../modules/workflows/workflow-reminders.js';

/** Everyone who hears of booking events in their transaction: webhooks, calendar writes, provider meetings, workflows. */
export const bookingEventListener = bookingEventListeners([bookingWebhooks, calendarEventWrites, bookingMeetingUpkeep, bookingWorkflows]);
