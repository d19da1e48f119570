// Team event types and their bookings written straight into the store, until the API that makes them
// (team event types, team bookings) is on main: the rows are those the API writes, only their creation
// is shortcut.
import { randomUUID } from 'node:crypto';
import { bookingAttendees, bookingHosts, bookings, type BookingStatus, eventTypes } from '../../src/db/schema.js';
import type { TestApp } from './test-app.js';

export interface EventTypeFixture {
  teamId?: number;
  userId?: number;
  /** A managed event type's copy: the parent it was made from (with `userId`, its member). */
  parentId?: number;
  schedulingType?: 'collective' | 'roundRobin' | 'managed';
  slug?: string;
}

export async function insertEventType(api: TestApp, fixture: EventTypeFixture): Promise<{ id: number; slug: string }> {
  const slug = fixture.slug ?? `et-${randomUUID().slice(0, 8)}`;
  const [row] = await api.runtime.ctx.database.db
    .insert(eventTypes)
    .values({
      teamId: fixture.teamId ?? null,
      userId: fixture.userId ?? null,
      parentId: fixture.parentId ?? null,
      schedulingType: fixture.schedulingType ?? (fixture.teamId ? 'collective' : null),
      slug,
      title: `Event ${slug}`,
      lengthInMinutes: 30,
      locations: [],
      bookingFields: [],
      settings: {} as never,
    })
    .returning({ id: eventTypes.id, slug: eventTypes.slug });
  return row!;
}

export interface TeamBookingFixture {
  organizerId: number;
  eventTypeId: number | null;
  start: string;
  minutes?: number;
  status?: BookingStatus;
  attendees?: { name: string; email: string }[];
  /** Hosts besides the organizer (the trigger writes the organizer's row). */
  coHostIds?: number[];
  createdAt?: string;
  recurringBookingUid?: string;
}

export async function insertTeamBooking(api: TestApp, fixture: TeamBookingFixture): Promise<{ id: number; uid: string }> {
  const { database, changes } = api.runtime.ctx;
  const start = new Date(fixture.start);
  const end = new Date(start.getTime() + (fixture.minutes ?? 30) * 60_000);
  const status = fixture.status ?? 'accepted';
  return changes.transaction(database, async (tx, announce) => {
    const [row] = await tx
      .insert(bookings)
      .values({
        uid: randomUUID(),
        eventTypeId: fixture.eventTypeId,
        userId: fixture.organizerId,
        title: 'Team fixture booking',
        startAt: start,
        endAt: end,
        status,
        recurringBookingUid: fixture.recurringBookingUid ?? null,
        ...(fixture.createdAt ? { createdAt: new Date(fixture.createdAt) } : {}),
      })
      .returning({ id: bookings.id, uid: bookings.uid });
    const attendees = fixture.attendees ?? [{ name: 'Guest', email: 'guest@example.com' }];
    if (attendees.length > 0) await tx.insert(bookingAttendees).values(attendees.map((attendee) => ({ bookingId: row!.id, ...attendee, timeZone: 'UTC' })));
    for (const userId of fixture.coHostIds ?? []) {
      await tx.insert(bookingHosts).values({ bookingId: row!.id, userId, startAt: start, endAt: end, status });
    }
    for (const userId of [fixture.organizerId, ...(fixture.coHostIds ?? [])]) await announce({ kind: 'busyTime', userId });
    return row!;
  });
}
