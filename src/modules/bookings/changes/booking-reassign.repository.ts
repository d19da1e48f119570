import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';

/**
 * Whether `userId` manages bookings of the event type, as the reference's EventTypeAccessService
 * decides (its owner is checked by the caller): a host of it, an accepted ADMIN or OWNER of its team
 * or of the team's organization, or, for a personal event type, of an organization its owner belongs
 * to (directly or through one of its teams).
 */
export async function managesEventType(db: Db, userId: number, eventType: { id: number; teamId: number | null; userId: number | null }): Promise<boolean> {
  const result = await db.execute(sql`
    select
      exists (select 1 from event_type_hosts where event_type_id = ${eventType.id} and user_id = ${userId})
      or exists (
        select 1 from memberships m join teams t on t.id = ${eventType.teamId}::int
        where m.user_id = ${userId} and m.accepted and m.role in ('ADMIN', 'OWNER') and (m.team_id = t.id or m.team_id = t.parent_id)
      )
      or exists (
        select 1 from memberships admin join teams org on org.id = admin.team_id and org.is_organization
        where admin.user_id = ${userId} and admin.accepted and admin.role in ('ADMIN', 'OWNER')
          and exists (
            select 1 from memberships owner join teams t on t.id = owner.team_id
            where owner.user_id = ${eventType.userId}::int and owner.accepted and (t.id = org.id or t.parent_id = org.id)
          )
      ) as "allowed"
  `);
  return (result as unknown as { rows: { allowed: boolean }[] }).rows[0]!.allowed;
}
