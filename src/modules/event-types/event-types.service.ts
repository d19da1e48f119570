import type { ChangeEvent, ChangeFeed } from '../../db/change-feed.js';
import type { Database, Db } from '../../db/client.js';
import { badRequest, DomainError, fieldRejected, invalidField, notFound } from '../../lib/errors.js';
import { ownsEventType } from '../access/resource-policy.js';
import { settleEmptiedInvites } from '../calendar-invites/calendar-invites.service.js';
import { setEventTypeDestination } from '../calendars/calendars.repository.js';
import { assertOwnsSchedule } from '../schedules/schedules.service.js';
import { applyChanges, assertRules, type CreateEventTypeInput, type EventTypeChanges, initialState, sentFields, stateOf } from './event-type-changes.js';
import { assertCalendarFieldsUsable, assertDestinationEmailUsable, destinationSource, withDestinations } from './event-type-calendars.js';
import { DEFAULT_SETTINGS } from './event-type-model.js';
import * as repo from './event-types.repository.js';
import type { EventTypeOwner, EventTypeRow, EventTypeState } from './event-types.repository.js';
import { DEFAULT_LOCATIONS } from './locations.js';
import { assertLocationAppsInstalled } from '../conferencing/conferencing.service.js';
import { assertCanCharge } from '../payments/event-type-prices.js';

/** An event type with the owner id and the users the outputs show. */
export interface EventTypeView {
  eventType: EventTypeRow;
  ownerId: number;
  users: EventTypeOwner[];
  /** The calendar the owner's bookings of it are written to: shown to the owner only (it names their calendar). */
  destinationCalendar?: { integration: string; externalId: string } | undefined;
}

export interface EventTypesQuery {
  username?: string | undefined;
  eventSlug?: string | undefined;
  usernames?: string[] | undefined;
  orgSlug?: string | undefined;
  orgId?: number | undefined;
  sortCreatedAt?: 'asc' | 'desc' | undefined;
  /** svc: a page of a user's list (the reference answers every event type at once). */
  skip?: number | undefined;
  take?: number | undefined;
}

/** A user's list answers at most this many event types per request (`skip` reaches the rest). */
export const EVENT_TYPES_PAGE_MAX = 250;

/** The reference's event-type routes answer a schedule of someone else with 404, where the schedule routes say 403. */
async function assertScheduleUsable(db: Db, userId: number, scheduleId: number): Promise<void> {
  try {
    await assertOwnsSchedule(db, userId, scheduleId);
  } catch (error) {
    if (error instanceof DomainError && error.reason === 'schedule_not_owned') {
      throw notFound('schedule_not_owned', `User with ID=${userId} does not own schedule with ID=${scheduleId}`);
    }
    throw error;
  }
}

/** Checks a personal event type's write; answers the calendar its destination names, if it names one. */
async function checkWrite(db: Db, userId: number, changes: EventTypeChanges, eventTypeId?: number): Promise<number | null> {
  assertCalendarFieldsUsable(changes, 'personal');
  await assertLocationAppsInstalled(db, { kind: 'user', userId }, changes.locations);
  await assertCanCharge(db, { kind: 'user', userId }, changes.price);
  await assertDestinationEmailUsable(db, userId, changes);
  if (changes.scheduleId !== undefined) await assertScheduleUsable(db, userId, changes.scheduleId);
  if (changes.slug !== undefined && (await repo.isSlugTaken(db, userId, changes.slug, eventTypeId))) {
    // The reference's message and status (a 400, not a 409), naming the field.
    throw fieldRejected('slug', 'event_type_slug_taken', 'User already has an event type with this slug.', changes.slug);
  }
  return changes.destinationCalendar ? destinationSource(db, userId, changes.destinationCalendar) : null;
}

/** Event-type writes change what their owner's slots are computed from. */
interface Deps {
  database: Database;
  changes: ChangeFeed;
}

export async function createEventType(deps: Deps, owner: EventTypeOwner, input: CreateEventTypeInput): Promise<EventTypeView> {
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const destination = await checkWrite(tx, owner.id, input);
    const state = applyChanges(initialState(), input);
    assertRules(state, input);
    const eventType = await settleEmptiedInvites(tx, await repo.insertEventType(tx, owner.id, state), input.emptiedCalendarInvites);
    if (destination !== null) await setEventTypeDestination(tx, owner.id, eventType.id, destination);
    await announce({ kind: 'availability', userId: owner.id });
    const [view] = await withDestinations(tx, [{ eventType, ownerId: owner.id, users: [owner] }]);
    return view!;
  });
}

/**
 * The reference's default event types of a managed user whose OAuth client asks for them: 30 and 60
 * minutes, each without a location and with the built-in video.
 */
const DEFAULT_EVENT_TYPES = [
  { slug: 'thirty-minutes', title: '30 Minutes', lengthInMinutes: 30, video: false },
  { slug: 'thirty-minutes-video', title: '30 Minutes', lengthInMinutes: 30, video: true },
  { slug: 'sixty-minutes', title: '60 Minutes', lengthInMinutes: 60, video: false },
  { slug: 'sixty-minutes-video', title: '60 Minutes', lengthInMinutes: 60, video: true },
] as const;

export async function createDefaultEventTypesIn(tx: Db, announce: (event: ChangeEvent) => Promise<void>, userId: number): Promise<void> {
  for (const { video, ...fields } of DEFAULT_EVENT_TYPES) {
    await repo.insertEventType(tx, userId, { ...initialState(), ...fields, locations: video ? DEFAULT_LOCATIONS : [] });
  }
  await announce({ kind: 'availability', userId });
}

/** GET and PATCH of an event type the caller does not own answer 404, as the reference does. */
function notFoundFor(id: number) {
  return notFound('event_type_not_found', `Event type with id ${id} not found`);
}

export async function getEventType(db: Db, caller: EventTypeOwner, id: number): Promise<EventTypeView> {
  const row = await repo.findEventTypeById(db, id);
  if (!row || !ownsEventType(caller.id, row)) throw notFoundFor(id);
  const [view] = await withDestinations(db, [{ eventType: row, ownerId: caller.id, users: [caller] }]);
  return view!;
}

/** What a member may change in their child of a managed event type (the reference's unlocked fields). */
export const MANAGED_CHILD_UNLOCKED_FIELDS: ReadonlySet<string> = new Set(['locations', 'scheduleId']);

/** A managed child follows its parent: its member changes only the unlocked fields (400 naming the first other one). */
function assertChildChangeAllowed(row: EventTypeRow, changes: EventTypeChanges): void {
  if (row.parentId === null) return;
  const locked = [...sentFields(changes)].find((field) => !MANAGED_CHILD_UNLOCKED_FIELDS.has(field));
  if (locked !== undefined) {
    throw fieldRejected(
      locked,
      'managed_event_type_locked',
      `${locked} is locked: event type ${row.id} belongs to the managed event type ${row.parentId}; only ${[...MANAGED_CHILD_UNLOCKED_FIELDS].join(' and ')} can be changed here.`,
    );
  }
}

export async function updateEventType(deps: Deps, caller: EventTypeOwner, id: number, changes: EventTypeChanges): Promise<EventTypeView> {
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const row = await repo.lockEventType(tx, id);
    if (!row || !ownsEventType(caller.id, row)) throw notFoundFor(id);
    assertChildChangeAllowed(row, changes);
    const destination = await checkWrite(tx, caller.id, changes, id);
    const state = applyChanges(stateOf(row), changes);
    assertRules(state, changes);
    const eventType = await settleEmptiedInvites(tx, await repo.updateEventType(tx, id, state), changes.emptiedCalendarInvites);
    if (destination !== null) await setEventTypeDestination(tx, caller.id, id, destination);
    await announce({ kind: 'availability', userId: caller.id });
    const [view] = await withDestinations(tx, [{ eventType, ownerId: caller.id, users: [caller] }]);
    return view!;
  });
}

/**
 * The reference answers 403 for another user's event type here, which tells that it exists; svc
 * answers 404 as for a missing one, as GET and PATCH do (README: where svc differs).
 */
export async function deleteEventType(deps: Deps, callerId: number, id: number): Promise<EventTypeRow> {
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const row = await repo.lockEventType(tx, id);
    if (!row || !ownsEventType(callerId, row)) throw notFound('event_type_not_found', `Event type with ID=${id} does not exist.`);
    if (row.parentId !== null) {
      throw badRequest('managed_event_type_child', `Event type ${id} belongs to the managed event type ${row.parentId}: it goes when its team removes you from the hosts.`);
    }
    await repo.deleteEventType(tx, id);
    await announce({ kind: 'availability', userId: callerId });
    return row;
  });
}

/** The reference's dynamic group event for `usernames`: not stored, owned by no one (ownerId 0). */
function dynamicEventType(users: EventTypeOwner[]): EventTypeView {
  const epoch = new Date(0);
  const state: EventTypeState = {
    ...initialState(),
    slug: 'dynamic',
    title: 'Group call',
    lengthInMinutes: 30,
    lengthInMinutesOptions: [15, 30, 45, 60, 90],
    settings: { ...DEFAULT_SETTINGS, customName: 'Dynamic Event' },
  };
  return { eventType: { ...state, id: 0, userId: 0, createdAt: epoch, updatedAt: epoch }, ownerId: 0, users };
}

/**
 * `GET /v2/event-types`, in the reference's order of precedence: username (+ eventSlug), usernames,
 * then the caller's own. svc has no organizations yet, so a username qualified by orgSlug or orgId
 * matches no one.
 */
export async function listEventTypes(db: Db, caller: EventTypeOwner | null, query: EventTypesQuery): Promise<EventTypeView[]> {
  const order = query.sortCreatedAt ?? 'asc';
  const page = { skip: query.skip ?? 0, take: query.take ?? EVENT_TYPES_PAGE_MAX };
  const inOrganization = query.orgSlug !== undefined || query.orgId !== undefined;
  if (query.eventSlug !== undefined && query.username === undefined) {
    throw invalidField('username', 'is required with eventSlug: several users can have an event type with the same slug');
  }
  if (query.username !== undefined) {
    const owner = inOrganization ? undefined : await repo.findOwnerByUsername(db, query.username);
    if (!owner) return [];
    const own = caller?.id === owner.id;
    const rows = await repo.listEventTypesOfUser(db, owner.id, { includeHidden: own, slug: query.eventSlug, order, page });
    const views = rows.map((eventType) => ({ eventType, ownerId: owner.id, users: [owner] }));
    return own ? withDestinations(db, views) : views;
  }
  if (query.usernames !== undefined) return [dynamicEventType(inOrganization ? [] : await repo.findOwnersByUsernames(db, query.usernames))];
  if (!caller) return [];
  const rows = await repo.listEventTypesOfUser(db, caller.id, { includeHidden: true, order, page });
  return withDestinations(db, rows.map((eventType) => ({ eventType, ownerId: caller.id, users: [caller] })));
}

/** An event type with its organizer, for booking it; undefined when there is none (the caller words the 404). */
export function findBookableEventType(db: Db, by: { id: number } | { username: string; slug: string }) {
  return repo.findEventTypeWithOrganizer(db, by);
}

/** Whether a username exists (to tell an unknown user from an unknown event type). */
export async function ownerExists(db: Db, username: string): Promise<boolean> {
  return (await repo.findOwnerByUsername(db, username)) !== undefined;
}
