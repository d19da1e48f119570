import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { memberships, roles, teams } from '../../db/schema.js';
import type { MembershipRole } from '../../db/schema.js';

export type TeamRow = typeof teams.$inferSelect;

/** The caller's standing in one team or organization: its membership role and custom role, if any. */
export interface HeldRole {
  role: MembershipRole;
  accepted: boolean;
  /** Permissions of the membership's custom PBAC role; null without one. */
  customPermissions: string[] | null;
}

export interface TenancyRows {
  teams: Map<number, TeamRow>;
  held: Map<number, HeldRole>;
}

/**
 * The named teams (and the parent organization of each) with the caller's membership in each, in one
 * statement: what every organization and team route's access decision reads.
 */
export async function loadTenancy(db: Db, userId: number, teamIds: number[]): Promise<TenancyRows> {
  const named = inArray(teams.id, teamIds);
  const parents = sql`${teams.id} in (select ${teams.parentId} from ${teams} where ${named})`;
  const rows = await db
    .select({ team: teams, role: memberships.role, accepted: memberships.accepted, customPermissions: roles.permissions })
    .from(teams)
    .leftJoin(memberships, and(eq(memberships.teamId, teams.id), eq(memberships.userId, userId)))
    .leftJoin(roles, eq(roles.id, memberships.customRoleId))
    .where(sql`${named} or ${parents}`);
  const result: TenancyRows = { teams: new Map(), held: new Map() };
  for (const row of rows) {
    result.teams.set(row.team.id, row.team);
    if (row.role !== null) result.held.set(row.team.id, { role: row.role, accepted: row.accepted ?? false, customPermissions: row.customPermissions });
  }
  return result;
}

/** A custom role of the team or organization `teamId`, if `roleId` names one, with its permissions. */
export async function findRoleOfTeam(db: Db, teamId: number, roleId: string): Promise<{ id: string; permissions: string[] } | undefined> {
  const [row] = await db.select({ id: roles.id, permissions: roles.permissions }).from(roles).where(and(eq(roles.id, roleId), eq(roles.teamId, teamId)));
  return row;
}

/** The permissions of a custom role (none for no role). */
export async function customRolePermissions(db: Db, roleId: string | null): Promise<string[]> {
  if (roleId === null) return [];
  const [row] = await db.select({ permissions: roles.permissions }).from(roles).where(eq(roles.id, roleId));
  return row?.permissions ?? [];
}
