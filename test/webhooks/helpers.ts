// Webhook test support: a real HTTP receiver on loopback, subscriptions written straight into the
// `webhooks` table (the subscription routes are built separately), and the signature checks a
// subscriber would run.
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { jobs, webhookDeliveries, webhookDeliveryAttempts, webhooks, type WebhookOwnerKind } from '../../src/db/schema.js';
import { WEBHOOK_FANOUT_JOB } from '../../src/modules/webhooks/webhook-emission.js';
import { eventually } from '../support/eventually.js';
import type { SecretBox } from '../../src/lib/secrets.js';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body as sent. */
  body: string;
  /** Parsed JSON body (undefined when not JSON). */
  json: any;
  /** Date.now() when the request's body had fully arrived. */
  at: number;
}

/** What the receiver answers to one request; `hang` never answers. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface Receiver {
  port: number;
  url: string;
  requests: Received[];
  /** The answer to each request (default 200). */
  answer: (request: Received, index: number) => Answer;
  /** Requests carrying this webhook-id, in arrival order. */
  byId(id: string): Received[];
  waitFor(count: number, timeoutMs?: number, predicate?: (request: Received) => boolean): Promise<Received[]>;
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1 recording every request (port 0: any free one). */
export async function startReceiver(answer: Receiver['answer'] = () => ({ status: 200 }), port = 0): Promise<Receiver> {
  const requests: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = {
    port: 0,
    url: '',
    requests,
    answer,
    byId: (id) => requests.filter((request) => request.headers['webhook-id'] === id),
    async waitFor(count, timeoutMs = 10_000, predicate = () => true) {
      const started = Date.now();
      for (;;) {
        const matching = requests.filter(predicate);
        if (matching.length >= count) return matching;
        if (Date.now() - started > timeoutMs) throw new Error(`receiver: ${matching.length} of ${count} requests after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const received: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json, at: Date.now() };
      const index = requests.length;
      requests.push(received);
      const reply = receiver.answer(received, index);
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  return receiver;
}

export interface SubscriptionFields {
  ownerKind?: WebhookOwnerKind;
  userId?: number;
  eventTypeId?: number;
  subscriberUrl: string;
  triggers: string[];
  active?: boolean;
  payloadTemplate?: string | null;
  secret?: string | null;
}

/** Writes a subscription row as the subscription routes would (secret sealed); returns its id. */
export async function insertWebhook(db: Db, secrets: SecretBox, fields: SubscriptionFields): Promise<number> {
  const ownerKind = fields.ownerKind ?? (fields.eventTypeId !== undefined ? 'eventType' : 'user');
  const [row] = await db
    .insert(webhooks)
    .values({
      ownerKind,
      userId: ownerKind === 'user' ? (fields.userId ?? null) : null,
      eventTypeId: ownerKind === 'eventType' ? (fields.eventTypeId ?? null) : null,
      subscriberUrl: fields.subscriberUrl,
      active: fields.active ?? true,
      triggers: fields.triggers,
      payloadTemplate: fields.payloadTemplate ?? null,
      secretSealed: fields.secret ? secrets.seal(fields.secret) : null,
    })
    .returning({ id: webhooks.id });
  return row!.id;
}

export async function deliveriesOf(db: Db, webhookId: number) {
  return db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId)).orderBy(asc(webhookDeliveries.id));
}

/**
 * The deliveries of a subscription once booking events have been fanned out to subscriptions (the
 * worker makes them after the booking's transaction): waits until no fan-out job is pending, then reads.
 */
export async function fannedOutDeliveriesOf(db: Db, webhookId: number, timeoutMs = 5000) {
  await eventually(async () => (await db.select({ id: jobs.id }).from(jobs).where(and(eq(jobs.kind, WEBHOOK_FANOUT_JOB), inArray(jobs.status, ['pending']))).limit(1)).length === 0, timeoutMs);
  return deliveriesOf(db, webhookId);
}

export async function attemptsOf(db: Db, deliveryId: number) {
  return db.select().from(webhookDeliveryAttempts).where(eq(webhookDeliveryAttempts.deliveryId, deliveryId)).orderBy(asc(webhookDeliveryAttempts.id));
}

const header = (request: Received, name: string) => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Checks both signature schemes the way a subscriber would, recomputed from the raw body:
 * X-Svc-Signature-256 (hex HMAC of the body) and Standard Webhooks (v1, base64 HMAC of id.timestamp.body).
 */
export function assertSigned(request: Received, secret: string): void {
  const hex = createHmac('sha256', secret).update(request.body).digest('hex');
  assert.equal(header(request, 'x-svc-signature-256'), hex, 'X-Svc-Signature-256');
  const id = header(request, 'webhook-id');
  const timestamp = header(request, 'webhook-timestamp');
  assert.ok(id && timestamp, 'webhook-id and webhook-timestamp');
  assert.match(timestamp, /^\d+$/);
  assert.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 60, 'webhook-timestamp is the attempt time in unix seconds');
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret);
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64');
  const signatures = (header(request, 'webhook-signature') ?? '').split(' ').map((entry) => entry.split(',', 2));
  assert.ok(
    signatures.some(([version, signature]) => version === 'v1' && signature !== undefined && signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected))),
    `webhook-signature ${header(request, 'webhook-signature')} verifies`,
  );
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
