import { and, asc, eq, inArray, isNull, notInArray, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { eventTypes, routingForms, verifiedEmails, verifiedPhones, workflowSteps, workflows } from '../../db/schema.js';
import type { StoredStep } from './workflow-model.js';

export type WorkflowRow = typeof workflows.$inferSelect;
export type StepRow = typeof workflowSteps.$inferSelect;
export type NewWorkflow = Omit<typeof workflows.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>;
export interface WorkflowWithSteps extends WorkflowRow {
  steps: (StepRow & { email: string | null; phone: string | null })[];
}

export async function insertWorkflow(db: Db, workflow: NewWorkflow): Promise<WorkflowRow> {
  const [row] = await db.insert(workflows).values(workflow).returning();
  return row!;
}

export async function updateWorkflow(db: Db, id: number, changes: Partial<NewWorkflow>): Promise<void> {
  await db.update(workflows).set({ ...changes, updatedAt: sql`now()` }).where(eq(workflows.id, id));
}

export async function deleteWorkflow(db: Db, id: number): Promise<void> {
  await db.delete(workflows).where(eq(workflows.id, id));
}

export async function lockWorkflow(db: Db, teamId: number, id: number, type: WorkflowRow['type']): Promise<WorkflowRow | undefined> {
  const [row] = await db
    .select()
    .from(workflows)
    .where(and(eq(workflows.id, id), eq(workflows.teamId, teamId), eq(workflows.type, type)))
    .for('update');
  return row;
}

/** The steps to store, with the verified address or number each one sends to copied in. */
const stepValues = (workflowId: number, step: StoredStep, addresses: { email: string | null; phone: string | null }) => ({ workflowId, ...step, ...addresses });

export async function insertSteps(db: Db, workflowId: number, steps: { step: StoredStep; email: string | null; phone: string | null }[]): Promise<void> {
  if (steps.length === 0) return;
  await db.insert(workflowSteps).values(steps.map(({ step, email, phone }) => stepValues(workflowId, step, { email, phone })));
}

export async function updateStep(db: Db, workflowId: number, stepId: number, step: StoredStep, addresses: { email: string | null; phone: string | null }): Promise<void> {
  await db
    .update(workflowSteps)
    .set(stepValues(workflowId, step, addresses))
    .where(and(eq(workflowSteps.id, stepId), eq(workflowSteps.workflowId, workflowId)));
}

/** Removes the workflow's steps not in `keep`; returns the ids removed. */
export async function deleteStepsExcept(db: Db, workflowId: number, keep: number[]): Promise<number[]> {
  const removed = await db
    .delete(workflowSteps)
    .where(and(eq(workflowSteps.workflowId, workflowId), keep.length ? notInArray(workflowSteps.id, keep) : undefined))
    .returning({ id: workflowSteps.id });
  return removed.map((row) => row.id);
}

export async function stepIdsOf(db: Db, workflowId: number): Promise<number[]> {
  const rows = await db.select({ id: workflowSteps.id }).from(workflowSteps).where(eq(workflowSteps.workflowId, workflowId));
  return rows.map((row) => row.id);
}

async function withSteps(db: Db, rows: WorkflowRow[]): Promise<WorkflowWithSteps[]> {
  if (rows.length === 0) return [];
  const steps = await db
    .select()
    .from(workflowSteps)
    .where(
      inArray(
        workflowSteps.workflowId,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(asc(workflowSteps.stepNumber), asc(workflowSteps.id));
  return rows.map((row) => ({ ...row, steps: steps.filter((step) => step.workflowId === row.id) }));
}

export async function findWorkflow(db: Db, teamId: number, id: number, type: WorkflowRow['type']): Promise<WorkflowWithSteps | undefined> {
  const rows = await db
    .select()
    .from(workflows)
    .where(and(eq(workflows.id, id), eq(workflows.teamId, teamId), eq(workflows.type, type)));
  return (await withSteps(db, rows))[0];
}

export async function listWorkflows(db: Db, teamId: number, type: WorkflowRow['type'], page: { skip: number; take: number }): Promise<WorkflowWithSteps[]> {
  const rows = await db
    .select()
    .from(workflows)
    .where(and(eq(workflows.teamId, teamId), eq(workflows.type, type)))
    .orderBy(asc(workflows.id))
    .offset(page.skip)
    .limit(page.take);
  return withSteps(db, rows);
}

/** Of `ids`, those that are event types of the team (its own, or managed ones' children made for its members). */
export async function teamEventTypeIds(db: Db, teamId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: eventTypes.id })
    .from(eventTypes)
    .where(and(inArray(eventTypes.id, ids), or(eq(eventTypes.teamId, teamId), sql`${eventTypes.parentId} in (select id from event_types where team_id = ${teamId})`)));
  return new Set(rows.map((row) => row.id));
}

export async function teamRoutingFormIds(db: Db, teamId: number, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: routingForms.id })
    .from(routingForms)
    .where(and(inArray(routingForms.id, ids), eq(routingForms.teamId, teamId)));
  return new Set(rows.map((row) => row.id));
}

/** A verified address the team may send to: the team's, or one its caller verified for themselves. */
export async function findUsableVerifiedEmail(db: Db, id: number, teamId: number, userId: number): Promise<string | null> {
  const [row] = await db
    .select({ email: verifiedEmails.email })
    .from(verifiedEmails)
    .where(and(eq(verifiedEmails.id, id), or(eq(verifiedEmails.teamId, teamId), and(eq(verifiedEmails.userId, userId), isNull(verifiedEmails.teamId)))));
  return row?.email ?? null;
}

export async function findUsableVerifiedPhone(db: Db, id: number, teamId: number, userId: number): Promise<string | null> {
  const [row] = await db
    .select({ phone: verifiedPhones.phoneNumber })
    .from(verifiedPhones)
    .where(and(eq(verifiedPhones.id, id), or(eq(verifiedPhones.teamId, teamId), and(eq(verifiedPhones.userId, userId), isNull(verifiedPhones.teamId)))));
  return row?.phone ?? null;
}
