import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { JOBS_CHANNEL } from '../../jobs/jobs.repository.js';

/** The job that hands one text message to the provider (payload `{messageId}`). */
export const TEXT_SEND_JOB = 'text.send';

export interface NewTextMessage {
  uid: string;
  channel: 'sms' | 'whatsapp';
  toNumber: string;
  body: string;
  bodySealed: boolean;
  purpose: 'workflow' | 'verification';
}

export interface TextMessageRow extends NewTextMessage {
  id: number;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
}

/** Writes messages and one send job each, in one statement inside the caller's transaction. */
export async function insertTextMessages(db: Db, messages: NewTextMessage[], maxAttempts: number): Promise<void> {
  if (messages.length === 0) return;
  const rows = messages.map((m) => sql`(${m.uid}::text, ${m.channel}::text, ${m.toNumber}::text, ${m.body}::text, ${m.bodySealed}::boolean, ${m.purpose}::text)`);
  await db.execute(sql`
    with message (uid, channel, to_number, body, body_sealed, purpose) as (values ${sql.join(rows, sql`, `)}),
    inserted as (insert into text_messages (uid, channel, to_number, body, body_sealed, purpose) select * from message returning id),
    queued as (insert into jobs (kind, payload, max_attempts) select ${TEXT_SEND_JOB}, jsonb_build_object('messageId', id), ${maxAttempts} from inserted returning id)
    select pg_notify(${JOBS_CHANNEL}, '') from (select count(*) from queued) done`);
}

export async function findTextMessage(db: Db, id: number): Promise<TextMessageRow | undefined> {
  const result = await db.execute(sql`
    select id, uid, channel, to_number as "toNumber", body, body_sealed as "bodySealed", purpose, status, attempts
    from text_messages where id = ${id}`);
  const row = (result as unknown as { rows: TextMessageRow[] }).rows[0];
  return row ? { ...row, id: Number(row.id) } : undefined;
}

/**
 * One attempt's outcome. A sent message keeps the provider's id (its delivery reports name it); a
 * sealed body is dropped once sent or failed for good: nothing needs the code any more.
 */
export async function recordTextAttempt(db: Db, id: number, outcome: { status: 'sent' | 'failed' | 'pending'; providerSid?: string; deliveryStatus?: string; error?: string | null }): Promise<void> {
  await db.execute(sql`update text_messages
    set attempts = attempts + 1, status = ${outcome.status}, last_error = ${outcome.error ?? null},
      provider_sid = coalesce(${outcome.providerSid ?? null}, provider_sid),
      delivery_status = coalesce(${outcome.deliveryStatus ?? null}, delivery_status),
      sent_at = case when ${outcome.status} = 'sent' then now() else sent_at end,
      body = case when body_sealed and ${outcome.status} <> 'pending' then '' else body end
    where id = ${id}`);
}

/** A delivery report from the provider: the status it gives for the message it names. Returns whether one matched. */
export async function recordDeliveryStatus(db: Db, providerSid: string, deliveryStatus: string, error: string | null): Promise<boolean> {
  const result = await db.execute(sql`update text_messages
    set delivery_status = ${deliveryStatus}, last_error = coalesce(${error}, last_error)
    where provider_sid = ${providerSid} returning id`);
  return (result as unknown as { rows: unknown[] }).rows.length > 0;
}

/** Sent and failed text messages made before `createdBefore`: up to `limit`, oldest first; returns how many. */
export async function deleteEndedTextMessages(db: Db, createdBefore: Date, limit: number): Promise<number> {
  const result = await db.execute(sql`
    delete from text_messages where id in (
      select id from text_messages where status <> 'pending' and created_at < ${createdBefore.toISOString()}::timestamptz order by id limit ${limit}
    ) returning id`);
  return (result as unknown as { rows: unknown[] }).rows.length;
}
