// The `workflow.activate` job: after a workflow is made or changed, its timed messages (before or
// after the event) are scheduled for the bookings that already exist, as the reference does when a
// workflow is activated on event types. A message whose time has passed is not sent late; bookings
// are read a page at a time; the dedupe keys make a re-run (a retry after a crash) schedule nothing twice.
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { bookings, eventTypes, workflows } from '../../db/schema.js';
import { loadRecords } from '../bookings/bookings.repository.js';
import { offsetMs } from './workflow-model.js';
import { insertDueJobs } from './workflow-reminders.repository.js';
import { dueJobsFor } from './workflow-reminders.js';
import * as repo from './workflows.repository.js';

const PAGE = 500;

export async function runWorkflowActivation(database: Database, payload: { workflowId: number }, nowMs = Date.now()): Promise<void> {
  const [workflow] = await database.db.select().from(workflows).where(eq(workflows.id, payload.workflowId));
  if (!workflow || workflow.type !== 'event-type' || (workflow.trigger !== 'beforeEvent' && workflow.trigger !== 'afterEvent')) return;
  const full = await repo.findWorkflow(database.db, workflow.teamId, workflow.id, 'event-type');
  if (!full || full.steps.length === 0) return;
  const typeIds = workflow.activeOnAll
    ? sql`(select id from ${eventTypes} where team_id = ${workflow.teamId} or parent_id in (select id from ${eventTypes} where team_id = ${workflow.teamId}))`
    : sql`(select id from ${eventTypes} where id = any(${sql.param(workflow.eventTypeIds)}::int[]) or parent_id = any(${sql.param(workflow.eventTypeIds)}::int[]))`;
  const applicable = { id: workflow.id, trigger: workflow.trigger, offsetValue: workflow.offsetValue, offsetUnit: workflow.offsetUnit, steps: full.steps };
  // Only bookings whose message time is still ahead: a start after now + offset, or an end after now - offset.
  const offset = offsetMs(workflow.offsetValue, workflow.offsetUnit);
  const ahead = workflow.trigger === 'beforeEvent' ? gt(bookings.startAt, new Date(nowMs + offset)) : gt(bookings.endAt, new Date(nowMs - offset));
  let afterId = 0;
  for (;;) {
    const page = await database.db
      .select()
      .from(bookings)
      .where(and(sql`${bookings.eventTypeId} in ${typeIds}`, eq(bookings.status, 'accepted'), ahead, gt(bookings.id, afterId)))
      .orderBy(asc(bookings.id))
      .limit(PAGE);
    if (page.length === 0) return;
    afterId = page.at(-1)!.id;
    const records = await loadRecords(database.db, page);
    const written = await database.transaction(async (tx) => {
      // The workflow may have changed since this job was queued: a later write queued its own run.
      const [current] = await tx.select({ updatedAt: workflows.updatedAt }).from(workflows).where(eq(workflows.id, workflow.id)).for('share');
      if (current?.updatedAt.getTime() !== workflow.updatedAt.getTime()) return false;
      await insertDueJobs(
        tx,
        records.flatMap((record) => dueJobsFor([applicable], record, nowMs, 'activation')),
        new Date(nowMs),
      );
      return true;
    });
    if (!written || page.length < PAGE) return;
  }
}
