import type { ChangeEvent, ChangeFeed } from '../../db/change-feed.js';
import type { Database, Db } from '../../db/client.js';
import { badRequest, forbidden, notFound } from '../../lib/errors.js';
import { ownsSchedule } from '../access/resource-policy.js';
import type { DateOverride, WeeklyRule } from '../../scheduling/availability-rules.js';
import { DEFAULT_WEEKLY_RULES } from './schedule-rules.js';
import * as repo from './schedules.repository.js';
import type { ScheduleRow } from './schedules.repository.js';

export interface ScheduleView {
  schedule: ScheduleRow;
  isDefault: boolean;
}

export interface CreateScheduleInput {
  name: string;
  timeZone: string;
  isDefault: boolean;
  availability?: WeeklyRule[] | undefined;
  overrides?: DateOverride[] | undefined;
}

export interface UpdateScheduleInput {
  name?: string | undefined;
  timeZone?: string | undefined;
  isDefault?: boolean | undefined;
  availability?: WeeklyRule[] | undefined;
  overrides?: DateOverride[] | undefined;
}

interface Deps {
  database: Database;
  changes: ChangeFeed;
}

type Announce = (event: ChangeEvent) => Promise<void>;

/** The user record carries `defaultScheduleId`, so moving the default refreshes cached users everywhere. */
async function changeDefault(tx: Db, announce: Announce, userId: number, scheduleId: number | null): Promise<void> {
  await repo.setUserDefaultSchedule(tx, userId, scheduleId);
  await announce({ kind: 'user', userId });
}

/** Creates a schedule inside `tx`. The first schedule a user has becomes the default whatever `isDefault` says. */
export async function createScheduleIn(tx: Db, announce: Announce, userId: number, input: CreateScheduleInput): Promise<ScheduleView> {
  const currentDefault = await repo.lockUserDefaultSchedule(tx, userId);
  const schedule = await repo.insertSchedule(tx, {
    userId,
    name: input.name,
    timeZone: input.timeZone,
    availability: input.availability ?? DEFAULT_WEEKLY_RULES,
    overrides: input.overrides ?? [],
  });
  const isDefault = input.isDefault || currentDefault === null;
  if (isDefault) await changeDefault(tx, announce, userId, schedule.id);
  return { schedule, isDefault };
}

export async function createSchedule(deps: Deps, userId: number, input: CreateScheduleInput): Promise<ScheduleView> {
  return deps.changes.transaction(deps.database, (tx, announce) => createScheduleIn(tx, announce, userId, input));
}

/** A team's own schedule, made with the team in its time zone: the reference's weekday working hours. */
export function createTeamScheduleIn(tx: Db, teamId: number, timeZone: string): Promise<ScheduleRow> {
  return repo.insertSchedule(tx, { userId: null, teamId, name: 'Default schedule', timeZone, availability: DEFAULT_WEEKLY_RULES, overrides: [] });
}

/** The default schedule the reference gives a user created with a time zone. */
export function createDefaultScheduleIn(tx: Db, announce: Announce, userId: number, timeZone: string): Promise<ScheduleView> {
  return createScheduleIn(tx, announce, userId, { name: 'Default schedule', timeZone, isDefault: true });
}

async function ownedSchedule(db: Db, userId: number, scheduleId: number): Promise<ScheduleRow> {
  const schedule = await repo.findScheduleById(db, scheduleId);
  if (!schedule) throw notFound('schedule_not_found', `Schedule with ID=${scheduleId} does not exist.`);
  if (!ownsSchedule(userId, schedule)) throw forbidden('schedule_not_owned', `User with ID=${userId} does not own schedule with ID=${scheduleId}`);
  return schedule;
}

/** Throws the reference's 404/403 unless `scheduleId` is one of the user's schedules. */
export async function assertOwnsSchedule(db: Db, userId: number, scheduleId: number): Promise<void> {
  await ownedSchedule(db, userId, scheduleId);
}

export async function getSchedule(db: Db, user: { id: number; defaultScheduleId: number | null }, scheduleId: number): Promise<ScheduleView> {
  const schedule = await ownedSchedule(db, user.id, scheduleId);
  return { schedule, isDefault: user.defaultScheduleId === schedule.id };
}

export async function listSchedules(db: Db, user: { id: number; defaultScheduleId: number | null }): Promise<ScheduleView[]> {
  const rows = await repo.listSchedulesOfUser(db, user.id);
  return rows.map((schedule) => ({ schedule, isDefault: user.defaultScheduleId === schedule.id }));
}

export async function getDefaultSchedule(db: Db, user: { id: number; defaultScheduleId: number | null }): Promise<ScheduleView | null> {
  if (user.defaultScheduleId === null) return null;
  const schedule = await repo.findScheduleById(db, user.defaultScheduleId);
  return schedule ? { schedule, isDefault: true } : null;
}

export async function updateSchedule(deps: Deps, userId: number, scheduleId: number, input: UpdateScheduleInput): Promise<ScheduleView> {
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const currentDefault = await repo.lockUserDefaultSchedule(tx, userId);
    await ownedSchedule(tx, userId, scheduleId);
    // `isDefault: false` on the default schedule is ignored, as the reference does: a user with
    // schedules always has a default, which moves only when another schedule is made the default.
    const { isDefault, ...changes } = input;
    const schedule = await repo.updateSchedule(tx, scheduleId, changes);
    await announce({ kind: 'availability', userId });
    if (isDefault && currentDefault !== scheduleId) await changeDefault(tx, announce, userId, scheduleId);
    return { schedule, isDefault: isDefault === true || currentDefault === scheduleId };
  });
}

/** Deletes a schedule; when it was the default, the user's oldest remaining schedule takes over. */
export async function deleteSchedule(deps: Deps, userId: number, scheduleId: number): Promise<void> {
  await deps.changes.transaction(deps.database, async (tx, announce) => {
    const currentDefault = await repo.lockUserDefaultSchedule(tx, userId);
    const schedule = await repo.findScheduleById(tx, scheduleId);
    // The reference answers a delete of a missing schedule with 400, not 404.
    if (!schedule) throw badRequest('schedule_not_found', `Schedule with ID=${scheduleId} does not exist.`);
    if (!ownsSchedule(userId, schedule)) throw forbidden('schedule_not_owned', `User with ID=${userId} does not own schedule with ID=${scheduleId}`);
    await repo.deleteSchedule(tx, scheduleId);
    await announce({ kind: 'availability', userId });
    if (currentDefault === scheduleId) await changeDefault(tx, announce, userId, (await repo.findOldestOtherSchedule(tx, userId, scheduleId)) ?? null);
  });
}

/** Every schedule of the organization's users (those with a profile there), paginated: organization admins' view. */
export async function listSchedulesOfOrganizationUsers(db: Db, organizationId: number, page: { skip: number; take: number }): Promise<ScheduleView[]> {
  return repo.listSchedulesOfOrganizationUsers(db, organizationId, page);
}

/** Every schedule of the team's members, paginated: team admins' view. */
export async function listSchedulesOfTeamMembers(db: Db, teamId: number, page: { skip: number; take: number }): Promise<ScheduleView[]> {
  return repo.listSchedulesOfTeamMembers(db, teamId, page);
}
