// An event type's calendar fields: the destination its owner's bookings are written to, and where it
// may not be set.
import type { Db } from '../../db/client.js';
import { invalidField } from '../../lib/errors.js';
import { eventTypeDestinations, findNamedCalendars, hasWritableConnection } from '../calendars/calendars.repository.js';
import type { EventTypeChanges } from './event-type-changes.js';
import type { EventTypeView } from './event-types.service.js';

/**
 * A team event type's bookings are written to each host's own destination, so a destination on the
 * team's event type (one member's calendar) is refused there.
 */
export function assertCalendarFieldsUsable(changes: EventTypeChanges, kind: 'personal' | 'team'): void {
  if (kind === 'team' && changes.destinationCalendar) {
    throw invalidField('destinationCalendar', 'is not taken on a team event type: each host\'s bookings go to the destination they set with PUT /v2/destination-calendars', changes.destinationCalendar);
  }
}

/** useDestinationCalendarEmail takes its address from a connected calendar: the owner must have one. */
export async function assertDestinationEmailUsable(db: Db, userId: number, changes: EventTypeChanges): Promise<void> {
  if (changes.settings.useDestinationCalendarEmail !== true) return;
  if (!(await hasWritableConnection(db, userId))) {
    throw invalidField('useDestinationCalendarEmail', 'needs a connected calendar svc writes bookings into (Google, Outlook, Apple or CalDAV): its account\'s address becomes the organizer\'s', true);
  }
}

/** The owner's writable calendar a destination names (400 naming the field otherwise). */
export async function destinationSource(db: Db, userId: number, named: { integration: string; externalId: string }): Promise<number> {
  const calendars = await findNamedCalendars(db, userId, named.integration, named.externalId);
  const writable = calendars.find((calendar) => !calendar.readOnly);
  if (writable) return writable.id;
  const why = calendars.length > 0 ? 'names a read-only calendar: svc cannot write bookings into it' : `names no connected ${named.integration} calendar of yours (GET /v2/calendars lists them)`;
  throw invalidField('destinationCalendar', why, named);
}

/** Views of the caller's own event types, with the destination each names. */
export async function withDestinations(db: Db, views: EventTypeView[]): Promise<EventTypeView[]> {
  const destinations = await eventTypeDestinations(db, views.map((view) => view.eventType.id));
  return views.map((view) => ({ ...view, destinationCalendar: destinations.get(view.eventType.id) }));
}
