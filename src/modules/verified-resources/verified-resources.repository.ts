import { and, asc, count, desc, eq, gt, inArray, isNull, lt, min, type SQL, sql } from 'drizzle-orm';
import { LOCK_CLASSES } from '../../db/locks.js';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { verificationCodes, verificationFailures, verifiedEmails, verifiedPhones } from '../../db/schema.js';

export type ResourceKind = 'email' | 'phone';

/** Whose resources: the caller's own (`teamId` null), or a team's, verified by the caller. */
export interface Owner {
  userId: number;
  teamId: number | null;
}

/** A verified email or phone number; `value` is the address (lower case) or the E.164 number. */
export interface VerifiedRow {
  id: number;
  userId: number | null;
  teamId: number | null;
  value: string;
}

export type CodeRow = typeof verificationCodes.$inferSelect;

/** How many rows fell in a window, and when the oldest of them was written (null: none). */
export interface WindowCount {
  count: number;
  oldest: Date | null;
}

const CALLER_LOCK = LOCK_CLASSES.verificationCaller;
const DESTINATION_LOCK = LOCK_CLASSES.verificationDestination;

/**
 * Serializes a caller's requests and verifies, so that counts read under it hold until the transaction
 * ends: requests sent at once cannot all slip under a limit. Taken before the destination's lock.
 */
export async function lockCaller(tx: Db, userId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${CALLER_LOCK}, ${userId})`);
}

/** The same for one address or number, across every caller and process. */
export async function lockDestination(tx: Db, kind: ResourceKind, destination: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${DESTINATION_LOCK}, hashtext(${`${kind}:${destination}`}))`);
}

function resource(kind: ResourceKind) {
  const table = kind === 'email' ? verifiedEmails : verifiedPhones;
  const value = kind === 'email' ? verifiedEmails.email : verifiedPhones.phoneNumber;
  return { table, fields: { id: table.id, userId: table.userId, teamId: table.teamId, value } };
}

const sameTeam = (column: PgColumn, teamId: number | null): SQL => (teamId === null ? isNull(column) : eq(column, teamId));

/** A user's own rows are theirs without a team; a team's rows are its own whoever verified them. */
function ownedBy(kind: ResourceKind, owner: Owner): SQL {
  const { fields } = resource(kind);
  return owner.teamId === null ? and(eq(fields.userId, owner.userId), isNull(fields.teamId))! : eq(fields.teamId, owner.teamId);
}

export async function findVerified(db: Db, kind: ResourceKind, owner: Owner, value: string): Promise<VerifiedRow | undefined> {
  const { table, fields } = resource(kind);
  const [row] = await db.select(fields).from(table).where(and(ownedBy(kind, owner), eq(fields.value, value)));
  return row;
}

export async function findVerifiedById(db: Db, kind: ResourceKind, owner: Owner, id: number): Promise<VerifiedRow | undefined> {
  const { table, fields } = resource(kind);
  const [row] = await db.select(fields).from(table).where(and(ownedBy(kind, owner), eq(fields.id, id)));
  return row;
}

export async function listVerified(db: Db, kind: ResourceKind, owner: Owner, page: { skip: number; take: number }): Promise<VerifiedRow[]> {
  const { table, fields } = resource(kind);
  return db.select(fields).from(table).where(ownedBy(kind, owner)).orderBy(asc(fields.id)).offset(page.skip).limit(page.take);
}

/** Stores a verified address or number; undefined when the owner already has it. */
export async function insertVerified(tx: Db, kind: ResourceKind, owner: Owner, value: string): Promise<VerifiedRow | undefined> {
  const { fields } = resource(kind);
  const rows =
    kind === 'email'
      ? await tx.insert(verifiedEmails).values({ userId: owner.userId, teamId: owner.teamId, email: value }).onConflictDoNothing().returning(fields)
      : await tx.insert(verifiedPhones).values({ userId: owner.userId, teamId: owner.teamId, phoneNumber: value }).onConflictDoNothing().returning(fields);
  return rows[0];
}

/** Codes requested after `since`: by one caller (of one kind, when given), or for one destination by anyone. */
export async function countCodes(tx: Db, of: { userId: number; kind?: ResourceKind } | { kind: ResourceKind; destination: string }, since: Date): Promise<WindowCount> {
  const who =
    'userId' in of
      ? and(eq(verificationCodes.userId, of.userId), of.kind ? eq(verificationCodes.kind, of.kind) : undefined)
      : and(eq(verificationCodes.kind, of.kind), eq(verificationCodes.destination, of.destination));
  const [row] = await tx
    .select({ count: count(), oldest: min(verificationCodes.createdAt) })
    .from(verificationCodes)
    .where(and(who, gt(verificationCodes.createdAt, since)));
  return { count: row?.count ?? 0, oldest: row?.oldest ?? null };
}

interface CodeTarget {
  owner: Owner;
  kind: ResourceKind;
  destination: string;
}

const codeOf = ({ owner, kind, destination }: CodeTarget) =>
  and(eq(verificationCodes.userId, owner.userId), sameTeam(verificationCodes.teamId, owner.teamId), eq(verificationCodes.kind, kind), eq(verificationCodes.destination, destination), isNull(verificationCodes.usedAt));

/** A new code replaces the caller's earlier unused ones for the same destination and owner. */
export async function supersedeCodes(tx: Db, target: CodeTarget, now: Date): Promise<void> {
  await tx.update(verificationCodes).set({ usedAt: now }).where(codeOf(target));
}

export async function insertCode(tx: Db, target: CodeTarget, code: { codeHash: string; expiresAt: Date; createdAt: Date }): Promise<void> {
  await tx.insert(verificationCodes).values({ kind: target.kind, destination: target.destination, userId: target.owner.userId, teamId: target.owner.teamId, ...code });
}

/** The caller's latest unused code for the destination, locked for the verify. */
export async function findLatestUnusedCode(tx: Db, target: CodeTarget): Promise<CodeRow | undefined> {
  const [row] = await tx.select().from(verificationCodes).where(codeOf(target)).orderBy(desc(verificationCodes.createdAt), desc(verificationCodes.id)).limit(1).for('update');
  return row;
}

export async function addFailedAttempt(tx: Db, codeId: number): Promise<void> {
  await tx.update(verificationCodes).set({ failedAttempts: sql`${verificationCodes.failedAttempts} + 1` }).where(eq(verificationCodes.id, codeId));
}

export async function markCodeUsed(tx: Db, codeId: number, now: Date): Promise<void> {
  await tx.update(verificationCodes).set({ usedAt: now }).where(eq(verificationCodes.id, codeId));
}

export async function countFailures(tx: Db, userId: number, since: Date): Promise<WindowCount> {
  const [row] = await tx
    .select({ count: count(), oldest: min(verificationFailures.createdAt) })
    .from(verificationFailures)
    .where(and(eq(verificationFailures.userId, userId), gt(verificationFailures.createdAt, since)));
  return { count: row?.count ?? 0, oldest: row?.oldest ?? null };
}

export async function insertFailure(tx: Db, userId: number, codeId: number | null, now: Date): Promise<void> {
  await tx.insert(verificationFailures).values({ userId, codeId, createdAt: now });
}

/** Housekeeping: codes requested before `createdBefore` that expired before `expiredBefore`, at most `limit` of them. */
export async function deleteCodesBefore(db: Db, createdBefore: Date, expiredBefore: Date, limit: number): Promise<number> {
  const old = db.select({ id: verificationCodes.id }).from(verificationCodes).where(and(lt(verificationCodes.createdAt, createdBefore), lt(verificationCodes.expiresAt, expiredBefore))).limit(limit);
  const rows = await db.delete(verificationCodes).where(inArray(verificationCodes.id, old)).returning({ id: verificationCodes.id });
  return rows.length;
}

export async function deleteFailuresBefore(db: Db, before: Date, limit: number): Promise<number> {
  const old = db.select({ id: verificationFailures.id }).from(verificationFailures).where(lt(verificationFailures.createdAt, before)).limit(limit);
  const rows = await db.delete(verificationFailures).where(inArray(verificationFailures.id, old)).returning({ id: verificationFailures.id });
  return rows.length;
}
