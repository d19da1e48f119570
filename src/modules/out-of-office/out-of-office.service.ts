// Out of office: times a user is away. Each entry takes whole UTC days out of the user's working time
// (the slot engine's `away`), so their personal and team event types offer nothing then; `toUserId`
// names who covers for them, which slot answers pass on to the booker.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../app/context.js';
import type { Db } from '../../db/client.js';
import type { OutOfOfficeReason } from '../../db/schema.js';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors.js';
import { emitWebhookEvent } from '../webhooks/webhook-emission.js';
import { findSubscriptions } from '../webhooks/webhook-deliveries.repository.js';
import * as repo from './out-of-office.repository.js';

const DAY = 86_400_000;
const OOO_CREATED_TRIGGER = 'OOO_CREATED';
/** The reference's reason ids (its OutOfOfficeReason table), shown in webhook payloads. */
const REASON_IDS: Record<OutOfOfficeReason, number> = { unspecified: 1, vacation: 2, travel: 3, sick: 4, public_holiday: 5 };
/** The reference's date format: UTC with seconds, optional milliseconds. */
const UTC_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

export interface OooInput {
  start?: string | undefined;
  end?: string | undefined;
  notes?: string | undefined;
  toUserId?: number | undefined;
  reason?: OutOfOfficeReason | undefined;
}

type Deps = Pick<AppContext, 'database' | 'changes' | 'clock'>;

/** The UTC day of `value` (a field of the body) as epoch ms of its midnight. */
function utcDayOf(field: 'start' | 'end', value: string): number {
  const epoch = UTC_INSTANT.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(epoch)) throw badRequest('invalid_ooo_entry', 'Invalid Date.', { property: field, value });
  return Math.floor(epoch / DAY) * DAY;
}

/** [startAt, endAt) of the days from `start`'s to `end`'s, both included. */
function daysOf(start: string, end: string): { startAt: Date; endAt: Date } {
  const first = utcDayOf('start', start);
  const last = utcDayOf('end', end);
  if (first > last) throw badRequest('invalid_ooo_entry', 'Start date must be before end date.', { property: 'start', value: start });
  return { startAt: new Date(first), endAt: new Date(last + DAY) };
}

/** The reference's checks, in its order, on the entry as it would be stored. */
async function assertValid(tx: Db, userId: number, entry: repo.OooFields, exceptId: number | null): Promise<void> {
  const { toUserId, startAt, endAt } = entry;
  if (toUserId !== null && (await repo.findRedirectBack(tx, userId, toUserId, startAt, endAt))) {
    throw badRequest('invalid_ooo_entry', 'Booking redirect infinite not allowed.', { property: 'toUserId', value: toUserId });
  }
  const overlapping = await repo.findOverlapping(tx, userId, startAt, endAt, exceptId);
  if (overlapping) throw conflict('ooo_entry_exists', `Ooo entry already exists: entry ${overlapping.id} covers part of these days.`, { property: 'start', oooId: overlapping.id });
  if (toUserId === userId) throw badRequest('invalid_ooo_entry', 'Cannot redirect to self.', { property: 'toUserId', value: toUserId });
  if (toUserId !== null && !(await repo.shareAcceptedMembership(tx, userId, toUserId))) throw badRequest('invalid_ooo_entry', 'Cannot redirect to this user.', { property: 'toUserId', value: toUserId });
}

export async function createEntry(deps: Deps, userId: number, input: OooInput & { start: string; end: string }): Promise<repo.OooRow> {
  const fields: repo.OooFields = { ...daysOf(input.start, input.end), notes: input.notes ?? null, reason: input.reason ?? 'unspecified', toUserId: input.toUserId ?? null };
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    await repo.lockUser(tx, userId);
    await assertValid(tx, userId, fields, null);
    const entry = await repo.insertEntry(tx, { ...fields, uuid: randomUUID(), userId });
    await emitCreated(tx, entry, deps.clock());
    await announce({ kind: 'busyTime', userId });
    return entry;
  });
}

export async function updateEntry(deps: Deps, userId: number, oooId: number, input: OooInput): Promise<repo.OooRow> {
  if ((input.start === undefined) !== (input.end === undefined)) throw badRequest('invalid_ooo_entry', 'Please specify both ooo start and end time.', { property: input.start === undefined ? 'start' : 'end', value: null });
  const days = input.start !== undefined && input.end !== undefined ? daysOf(input.start, input.end) : null;
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    await repo.lockUser(tx, userId);
    const current = await ownEntry(tx, userId, oooId);
    const changes: Partial<repo.OooFields> = {
      ...(days ?? {}),
      ...(input.notes !== undefined ? { notes: input.notes } : {}),
      ...(input.reason !== undefined ? { reason: input.reason } : {}),
      ...(input.toUserId !== undefined ? { toUserId: input.toUserId } : {}),
    };
    await assertValid(tx, userId, { ...current, ...changes }, current.id);
    const entry = await repo.updateEntry(tx, current.id, changes);
    await announce({ kind: 'busyTime', userId });
    return entry;
  });
}

export async function deleteEntry(deps: Deps, userId: number, oooId: number): Promise<repo.OooRow> {
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    await repo.lockUser(tx, userId);
    const entry = await ownEntry(tx, userId, oooId);
    await repo.deleteEntry(tx, entry.id);
    await announce({ kind: 'busyTime', userId });
    return entry;
  });
}

/** The user's entry `oooId`: 404 when there is none, the reference's 403 when it is someone else's. */
async function ownEntry(db: Db, userId: number, oooId: number): Promise<repo.OooRow> {
  const entry = await repo.findEntry(db, oooId);
  if (!entry) throw notFound('ooo_entry_not_found', `OOO entry with id=${oooId} not found`);
  if (entry.userId !== userId) throw forbidden('ooo_entry_not_owned', 'This OOO entry does not belong to this user.');
  return entry;
}

export const listEntriesOfUser = (db: Db, userId: number, page: repo.Page, sort: repo.OooSort) => repo.listEntriesOfUser(db, userId, page, sort);
export const listEntriesOfOrganization = (db: Db, organizationId: number, email: string | undefined, page: repo.Page, sort: repo.OooSort) =>
  repo.listEntriesOfOrganization(db, organizationId, email, page, sort);

/** OOO_CREATED to the user's webhooks, their organizations' and their OAuth client's, in the entry's transaction. */
async function emitCreated(tx: Db, entry: repo.OooRow, now: number): Promise<void> {
  const audience = { userIds: [entry.userId], eventTypeIds: [], teamIds: [], organizationIds: [], organizationMemberIds: [entry.userId], oauthClientIds: [], managedUserIds: [entry.userId] };
  const subscriptions = await findSubscriptions(tx, audience, [OOO_CREATED_TRIGGER]);
  if (subscriptions.length === 0) return;
  const people = await repo.findPeople(tx, [entry.userId, ...(entry.toUserId === null ? [] : [entry.toUserId])]);
  await emitWebhookEvent(
    tx,
    {
      trigger: OOO_CREATED_TRIGGER,
      createdAt: new Date(now),
      bookingEventId: null,
      payload: {
        oooEntry: {
          id: entry.id,
          uuid: entry.uuid,
          start: entry.startAt.toISOString(),
          end: new Date(entry.endAt.getTime() - 1).toISOString(),
          createdAt: entry.createdAt.toISOString(),
          updatedAt: entry.updatedAt.toISOString(),
          notes: entry.notes,
          reason: { reason: entry.reason },
          reasonId: REASON_IDS[entry.reason],
          user: people.get(entry.userId) ?? null,
          toUser: entry.toUserId === null ? null : (people.get(entry.toUserId) ?? null),
        },
      },
    },
    subscriptions,
  );
}

/**
 * Who is away somewhere in [from, to) among `userIds`, and who covers: what a slot answer tells anyone
 * (the listing is public), so an entry's notes stay out.
 */
export async function awayHostsOf(db: Db, userIds: number[], from: number, to: number) {
  if (userIds.length === 0) return [];
  const rows = await repo.listAwayEntries(db, userIds, new Date(from), new Date(to));
  return rows.map(({ entry, toUser }) => ({
    userId: entry.userId,
    oooId: entry.id,
    start: entry.startAt.toISOString(),
    end: new Date(entry.endAt.getTime() - 1).toISOString(),
    reason: entry.reason,
    toUser: toUser && toUser.id !== null ? toUser : null,
  }));
}
