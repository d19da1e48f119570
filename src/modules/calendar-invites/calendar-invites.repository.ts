import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { OrganizationCalendarInvites } from '../../db/schema/teams.js';
import type { CalendarInvites } from '../event-types/event-type-model.js';

/** An event type's invite settings with what they are resolved against. */
export interface EventTypeInvitesRow {
  id: number;
  userId: number | null;
  teamId: number | null;
  parentId: number | null;
  invites: CalendarInvites | null;
  /** A managed child's parent's settings (the child has none of its own). */
  parentInvites: CalendarInvites | null;
  /** The organization of the event type's team, or of its owner for a personal one; null: none. */
  organizationId: number | null;
  organizationInvites: OrganizationCalendarInvites | null;
}

/** One row; `lock`: FOR UPDATE of the event type (a PATCH applies after any other in flight). */
export async function findEventTypeInvites(db: Db, id: number, lock = false): Promise<EventTypeInvitesRow | undefined> {
  const result = await db.execute(sql`
    with et as (select * from event_types where id = ${id} ${lock ? sql`for update` : sql``}),
    org as (
      select coalesce(
        (select case when t.is_organization then t.id else t.parent_id end from teams t
          where t.id = coalesce(et.team_id, (select p.team_id from event_types p where p.id = et.parent_id))),
        (select u.organization_id from users u join teams o on o.id = u.organization_id and o.is_organization where u.id = et.user_id)
      ) as id from et
    )
    select et.id, et.user_id as "userId", et.team_id as "teamId", et.parent_id as "parentId", et.calendar_invites as invites,
      (select p.calendar_invites from event_types p where p.id = et.parent_id) as "parentInvites",
      org.id as "organizationId", (select o.calendar_invites from teams o where o.id = org.id) as "organizationInvites"
    from et, org`);
  const row = (result as unknown as { rows: EventTypeInvitesRow[] }).rows[0];
  return row && { ...row, organizationId: row.organizationId === null ? null : Number(row.organizationId) };
}

export async function updateEventTypeInvites(db: Db, id: number, invites: CalendarInvites): Promise<void> {
  await db.execute(sql`update event_types set calendar_invites = ${JSON.stringify(invites)}::jsonb, updated_at = now() where id = ${id}`);
}

export async function findOrganizationInvites(db: Db, organizationId: number, lock = false): Promise<OrganizationCalendarInvites | null> {
  const result = await db.execute(sql`select calendar_invites as invites from teams where id = ${organizationId} ${lock ? sql`for update` : sql``}`);
  return (result as unknown as { rows: { invites: OrganizationCalendarInvites | null }[] }).rows[0]?.invites ?? null;
}

export async function updateOrganizationInvites(db: Db, organizationId: number, invites: OrganizationCalendarInvites): Promise<void> {
  await db.execute(sql`update teams set calendar_invites = ${JSON.stringify(invites)}::jsonb, updated_at = now() where id = ${organizationId}`);
}
