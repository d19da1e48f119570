import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import type { Config } from '../../app/config.js';
import type { Database } from '../../db/client.js';
import { type JobHandler, JobRetry, retryDelayMs } from '../../jobs/runner.js';
import { groupedCalls } from '../../lib/grouped-calls.js';
import type { SecretBox } from '../../lib/secrets.js';
import { isPublicAddress, publicOnlyLookup } from '../../lib/outbound-address.js';
import * as repo from './webhook-deliveries.repository.js';

export { WEBHOOK_DELIVERY_JOB } from './webhook-emission.js';

/** The reference's header value when the subscription has no secret. */
export const NO_SECRET = 'no-secret-provided';
const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * The signature headers of one attempt:
 * - `X-Svc-Signature-256`: lowercase hex HMAC-SHA256 of the exact body keyed with the secret (the
 *   reference's scheme), or `no-secret-provided`;
 * - Standard Webhooks: `webhook-id` (the delivery's uid, the same on every retry), `webhook-timestamp`
 *   (unix seconds of this attempt) and, with a secret, `webhook-signature` = `v1,` + base64
 *   HMAC-SHA256 of `${id}.${timestamp}.${body}`. The key is the secret's UTF-8 bytes; a secret in the
 *   Standard Webhooks form `whsec_<base64>` is keyed with the bytes it encodes, as their libraries do.
 */
export function signatureHeaders(secret: string | null, id: string, timestamp: number, body: string): Record<string, string> {
  const headers: Record<string, string> = {
    'X-Svc-Signature-256': secret ? createHmac('sha256', secret).update(body, 'utf8').digest('hex') : NO_SECRET,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
  };
  if (secret) {
    const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
    headers['webhook-signature'] = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
  }
  return headers;
}

export interface SendOutcome {
  /** null: no HTTP answer (refused, unreachable, timed out). */
  statusCode: number | null;
  /** null on a 2xx. */
  error: string | null;
  durationMs: number;
  /** A 429 or 503 answer's Retry-After, in ms. */
  retryAfterMs?: number;
}

export interface Sender {
  send(url: string, body: string, headers: Record<string, string>): Promise<SendOutcome>;
  close(): void;
}

function retryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}

/**
 * A connection's errors reach its request only while the request owns it: one emitted after the
 * exchange (a write still failing after the peer answered and closed) or while the connection idles in
 * the agent's pool would otherwise be an uncaught exception and end the process. The attempt's own
 * outcome comes from the request's listeners; this one only keeps the rest from escaping.
 */
function ignoreLateErrors(): void {}

function guardConnection(socket: Socket): void {
  if (!socket.listeners('error').includes(ignoreLateErrors)) socket.on('error', ignoreLateErrors);
}

/**
 * POSTs with node:http(s): redirects are not followed (a 3xx is a failure), the whole exchange is
 * bounded by `timeoutMs`, and connections go only to public addresses unless `allowPrivate`
 * (the `lookup` checks names when each connection is made; address literals are checked here, since
 * Node does not look them up). Connections are kept alive between deliveries to the same receiver.
 */
export function createSender(options: { timeoutMs: number; allowPrivate: boolean; maxSockets: number }): Sender {
  const lookup = publicOnlyLookup(options.allowPrivate);
  // As many idle connections per receiver may be kept as are used at once: fewer, and every burst of
  // deliveries to one receiver would close and reopen the rest (it halved the delivery rate).
  const sockets = { keepAlive: true, maxSockets: options.maxSockets, maxFreeSockets: options.maxSockets };
  const agents = { 'http:': new http.Agent(sockets), 'https:': new https.Agent(sockets) };
  return {
    send(target, body, headers) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return Promise.resolve({ statusCode: null, error: `invalid subscriber URL: ${target}`, durationMs: 0 });
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.resolve({ statusCode: null, error: `not an http(s) URL: ${target}`, durationMs: 0 });
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
        return Promise.resolve({ statusCode: null, error: `refused: ${host} is a non-public address`, durationMs: 0 });
      }
      const client = url.protocol === 'https:' ? https : http;
      const payload = Buffer.from(body, 'utf8');
      return new Promise<SendOutcome>((resolve) => {
        let settled = false;
        const finish = (outcome: Omit<SendOutcome, 'durationMs'>) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ ...outcome, durationMs: elapsed() });
        };
        const request = client.request(url, {
          method: 'POST',
          agent: agents[url.protocol as 'http:' | 'https:'],
          lookup,
          headers: { 'User-Agent': 'svc-webhooks/1', 'Content-Length': String(payload.length), ...headers },
        });
        request.on('socket', guardConnection);
        const timer = setTimeout(() => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
        request.on('error', (error: NodeJS.ErrnoException) => finish({ statusCode: null, error: error.code && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message }));
        // Whatever else happens, the attempt ends when the exchange does.
        request.on('close', () => setImmediate(() => finish({ statusCode: null, error: 'connection closed before an answer' })));
        request.on('response', (response) => {
          const status = response.statusCode ?? 0;
          // A connection is kept for the next delivery only after a 2xx to a body sent whole. A peer
          // that answered before reading the whole body (an early 404, say) has unread bytes on the
          // wire and usually closes right after; an error answer often comes with a close too.
          const sentWhole = request.writableFinished;
          if (!sentWhole || status < 200 || status >= 300) request.shouldKeepAlive = false;
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            if (text.length < 500) text += chunk;
          });
          response.on('error', (error) => finish({ statusCode: status, error: `answer interrupted: ${error.message}` }));
          response.on('end', () => {
            // The rest of the body may be stuck in a write the peer will never read: drop the connection now.
            if (!sentWhole) request.destroy();
            if (status >= 200 && status < 300) return finish({ statusCode: status, error: null });
            const snippet = text.trim().slice(0, 200);
            const what = status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed${response.headers.location ? `; location: ${response.headers.location}` : ''})` : `HTTP ${status}`;
            const wait = status === 429 || status === 503 ? retryAfter(response.headers['retry-after']) : undefined;
            finish({ statusCode: status, error: snippet ? `${what}: ${snippet}` : what, ...(wait !== undefined ? { retryAfterMs: wait } : {}) });
          });
        });
        request.end(payload);
      });
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an unparsable URL';
  }
}

export interface DelivererDeps {
  database: Database;
  secrets: SecretBox;
  config: Pick<Config, 'allowPrivateWebhooks' | 'webhookTimeoutMs' | 'jobs'>;
  /** Each delivery made is one info line (failures are the job runner's warnings). */
  log?: { info(obj: object, msg: string): void };
}

/**
 * The `webhook.deliver` job: one attempt at one delivery. A 2xx marks it delivered; anything else
 * (network error, timeout, 3xx/4xx/5xx) is logged and thrown so the runner retries with backoff, and
 * after the last attempt the delivery is failed. A subscription deleted meanwhile took its deliveries
 * with it; one deactivated meanwhile is not sent to, and the delivery says so.
 */
export function createWebhookDeliverer(deps: DelivererDeps): JobHandler {
  const { database, secrets, config } = deps;
  const sender = createSender({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.allowPrivateWebhooks, maxSockets: config.jobs.concurrency });
  // Opened secrets by sealed text (a changed secret is a new sealed text): one AES open per subscription, not per attempt.
  const opened = new Map<string, string>();
  const openSecret = (sealed: string) => {
    let secret = opened.get(sealed);
    if (secret === undefined) {
      if (opened.size >= 1000) opened.clear();
      secret = secrets.open(sealed);
      opened.set(sealed, secret);
    }
    return secret;
  };
  // The jobs of one claim start together: one statement reads all their deliveries, and attempts that
  // end while another group is being recorded are recorded together (a statement per group, not per delivery).
  const findDelivery = groupedCalls(async (ids: number[]) => {
    const found = new Map((await repo.findDeliveriesToSend(database.db, ids)).map((delivery) => [delivery.id, delivery]));
    return ids.map((id) => found.get(id));
  });
  const recordAttempt = groupedCalls(async (attempts: repo.AttemptRecord[]) => {
    await repo.recordAttempts(database.db, attempts);
    return attempts.map(() => undefined);
  });
  return async (payload: { deliveryId: number }, job) => {
    const delivery = await findDelivery(payload.deliveryId);
    if (!delivery || delivery.status !== 'pending') return;
    if (!delivery.active) {
      await repo.failDelivery(database.db, delivery.id, 'Not sent: the subscription was deactivated before this delivery was made.');
      return;
    }
    const attemptedAt = new Date();
    let outcome: SendOutcome;
    try {
      const secret = delivery.secretSealed ? openSecret(delivery.secretSealed) : null;
      const headers = { 'Content-Type': delivery.contentType, ...signatureHeaders(secret, delivery.uid, Math.floor(attemptedAt.getTime() / 1000), delivery.body) };
      outcome = await sender.send(delivery.subscriberUrl, delivery.body, headers);
    } catch (error) {
      outcome = { statusCode: null, error: `not sent: ${error instanceof Error ? error.message : String(error)}`, durationMs: 0 };
    }
    const delivered = outcome.error === null;
    const last = job.attempts >= job.maxAttempts;
    await recordAttempt({
      deliveryId: delivery.id,
      attemptedAt,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      error: outcome.error,
      outcome: delivered ? 'delivered' : last ? 'failed' : 'pending',
    });
    if (delivered) {
      // The subscriber's origin only: a URL's path or query may carry a token of the subscriber's.
      deps.log?.info({ deliveryUid: delivery.uid, subscriber: originOf(delivery.subscriberUrl), status: outcome.statusCode, attempt: job.attempts, ms: outcome.durationMs }, 'webhook delivered');
      return;
    }
    const message = `delivery ${delivery.uid} to ${originOf(delivery.subscriberUrl)} attempt ${job.attempts}: ${outcome.error}`;
    if (outcome.retryAfterMs !== undefined) throw new JobRetry(message, Math.max(outcome.retryAfterMs, retryDelayMs(job.attempts, config.jobs.retryBaseMs)));
    throw new Error(message);
  };
}
