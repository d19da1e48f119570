// svc with the local Stripe for the payment tests: its settings, Stripe Connect's consent dance as a
// browser makes it (svc's consent URL, Stripe's redirect back to svc's save route), paid event types.
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import type { FakeStripe } from '../support/fake-stripe.js';
import type { TestApp } from '../support/test-app.js';

export const EVENT_TYPES_VERSION = '2024-06-14';

/** svc's environment for the local Stripe. */
export const stripeEnv = (stripe: FakeStripe): Record<string, string> => ({
  STRIPE_SECRET_KEY: stripe.secretKey,
  STRIPE_CLIENT_ID: stripe.clientId,
  STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
  STRIPE_API_URL: stripe.url,
  STRIPE_CONNECT_URL: stripe.url,
});

export interface ConnectOutcome {
  /** svc's answer to Stripe's redirect. */
  status: number;
  location: string | null;
  body: string;
}

/**
 * A browser connecting a Stripe account: svc's consent URL (`connectPath`, with the caller's key), then
 * Stripe's consent page, which redirects back to svc's save route (`savePath`, default where Stripe was told).
 */
export async function connectStripe(api: TestApp, key: string, connectPath = '/v2/stripe/connect', query = '', savePath?: string): Promise<ConnectOutcome & { authUrl: string }> {
  const connect = await api.request('GET', `${connectPath}${query}`, { key });
  assert.equal(connect.status, 200, connect.text);
  const authUrl: string = connect.body.data.authUrl;
  const consent = await fetch(authUrl, { redirect: 'manual' });
  assert.equal(consent.status, 302, await consent.text());
  const back = new URL(consent.headers.get('location')!);
  // Stripe sends the browser to the redirect_uri svc gave (APP_URL); this svc listens on a test port.
  const saved = await fetch(`${api.baseUrl}${savePath ?? back.pathname}${back.search}`, { redirect: 'manual' });
  return { authUrl, status: saved.status, location: saved.headers.get('location'), body: await saved.text() };
}

export async function createPaidEventType(api: TestApp, key: string, fields: Record<string, unknown>) {
  const response = await api.request('POST', '/v2/event-types', {
    key,
    version: EVENT_TYPES_VERSION,
    body: { title: 'Consultation', slug: `paid-${Math.random().toString(36).slice(2, 8)}`, lengthInMinutes: 30, minimumBookingNotice: 0, price: 5000, currency: 'eur', ...fields },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.data as { id: number; price: number; currency: string };
}

const rowsOf = async <T>(db: Db, query: ReturnType<typeof sql>) => ((await db.execute(query)) as unknown as { rows: T[] }).rows;

export interface PaymentJobRow {
  id: number;
  kind: string;
  run_at: string;
  status: string;
  payload: Record<string, unknown>;
}

export const paymentJobs = (db: Db, kind: string) =>
  rowsOf<PaymentJobRow>(db, sql`select id, kind, run_at, status, payload from jobs where kind = ${kind} order by id`);

/** A clock reaching the end of a payment's hold: its release job made due now. */
export async function reachHoldEnd(db: Db, paymentUid: string): Promise<void> {
  await db.execute(sql`update jobs set run_at = now() where kind = 'payment.release' and status = 'pending'
    and (payload->>'paymentId')::int = (select id from payments where uid = ${paymentUid})`);
  await db.execute(sql`select pg_notify('svc_jobs', '')`);
}

export const paymentRow = async (db: Db, uid: string) =>
  (await rowsOf<{ id: number; status: string; payment_intent_id: string | null; refund_id: string | null; refunded_amount: number | null; hold_until: string; checkout_session_id: string }>(
    db,
    sql`select id, status, payment_intent_id, refund_id, refunded_amount, hold_until, checkout_session_id from payments where uid = ${uid}`,
  ))[0];
