// A local Twilio for the SMS/WhatsApp tests: the subset of its Programmable Messaging REST API svc uses,
// answering as Twilio documents it (twilio.com/docs/messaging/api/message-resource): POST
// /2010-04-01/Accounts/:sid/Messages.json (form-encoded To, From or MessagingServiceSid, Body,
// StatusCallback) and GET /2010-04-01/Accounts/:sid/Messages/:messageSid.json, HTTP Basic authentication
// with the Account SID and Auth Token, and {code, message, more_info, status} error bodies with Twilio's
// error codes (twilio.com/docs/api/errors). And Twilio's side of status callbacks: form posts of sent,
// then delivered (or undelivered / failed with an ErrorCode), signed with X-Twilio-Signature as Twilio
// signs (twilio.com/docs/usage/webhooks/webhooks-security). Written apart from the adapter's signing so
// that a mistake in one shows against the other. On 127.0.0.1, on a free port.
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TwilioMessageRecord {
  sid: string;
  /** As sent, whatsapp: prefix included. */
  to: string;
  /** The From as sent, or the Messaging Service's sid when that was given instead. */
  from: string;
  body: string;
  channel: 'sms' | 'whatsapp';
  statusCallback: string | null;
  receivedAt: number;
}

export interface TwilioFailure {
  status: number;
  code: number;
  message: string;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
}

export interface StatusCallbackRecord {
  url: string;
  params: Record<string, string>;
  signature: string;
  /** The receiver's HTTP status, 0 when it could not be reached. */
  answered: number;
}

export interface FakeTwilio {
  apiUrl: string;
  accountSid: string;
  authToken: string;
  /** Every API request as it arrived (before authentication), in order. */
  requests: { method: string; path: string; authorization: string | null; form: Record<string, string> }[];
  /** Every accepted message, in order. */
  messages: TwilioMessageRecord[];
  /** Every status callback posted, in order. */
  callbacks: StatusCallbackRecord[];
  /** Numbers (E.164, no prefix) whose owner replied STOP: sends to them fail with 21610. */
  blockedNumbers: Set<string>;
  /** Numbers Twilio finds invalid: sends to them fail with 21211. */
  invalidNumbers: Set<string>;
  /** The next `count` sends (after authentication) fail as given. */
  failNext(count: number, failure: TwilioFailure): void;
  /** Messages to `to` are accepted but their callbacks report this outcome. */
  numberStatus(to: string, outcome: 'undelivered' | 'failed'): void;
  /** Sends wait, unanswered, until release(); they are then handled as usual. */
  hold(): void;
  release(): void;
  waitForHeld(count: number, timeoutMs?: number): Promise<void>;
  waitForMessages(count: number, timeoutMs?: number): Promise<TwilioMessageRecord[]>;
  waitForCallbacks(count: number, timeoutMs?: number): Promise<StatusCallbackRecord[]>;
  /** Twilio's signature of a callback to `url` with `params`. */
  sign(url: string, params: Record<string, string>): string;
  close(): Promise<void>;
}

const E164 = /^\+[1-9]\d{1,14}$/;
const GSM_BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENDED = '^{}\\[~]|€\f';

/** Segments as Twilio counts them: GSM-7 160 (153 when split), otherwise UCS-2 70 (67 when split). */
function segmentsOf(body: string): number {
  const gsm = [...body].every((char) => GSM_BASIC.includes(char) || GSM_EXTENDED.includes(char));
  const units = gsm ? [...body].reduce((sum, char) => sum + (GSM_EXTENDED.includes(char) ? 2 : 1), 0) : body.length;
  const [single, split] = gsm ? [160, 153] : [70, 67];
  return units <= single ? 1 : Math.ceil(units / split);
}

// RFC 2822, as Twilio writes its dates.
const twilioDate = (at: number) => new Date(at).toUTCString().replace('GMT', '+0000');

export async function startFakeTwilio(options: { accountSid?: string; authToken?: string } = {}): Promise<FakeTwilio> {
  const accountSid = options.accountSid ?? `AC${randomBytes(16).toString('hex')}`;
  const authToken = options.authToken ?? randomBytes(16).toString('hex');
  const requests: FakeTwilio['requests'] = [];
  const messages: TwilioMessageRecord[] = [];
  const resources = new Map<string, Record<string, unknown>>();
  const callbacks: StatusCallbackRecord[] = [];
  const outcomes = new Map<string, 'undelivered' | 'failed'>();
  const failures: TwilioFailure[] = [];
  const pendingCallbacks = new Set<Promise<void>>();
  let held: (() => void)[] | null = null;
  let heldCount = 0;

  const sign = (url: string, params: Record<string, string>) => {
    const pairs = Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const hmac = createHmac('sha1', Buffer.from(authToken, 'utf8'));
    hmac.update(url);
    for (const [name, value] of pairs) hmac.update(name + value);
    return hmac.digest('base64');
  };
  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const error = (res: http.ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}) =>
    send(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, headers);

  const postCallback = async (url: string, message: TwilioMessageRecord, status: string, errorCode?: number) => {
    const params: Record<string, string> = {
      MessageSid: message.sid,
      SmsSid: message.sid,
      MessageStatus: status,
      SmsStatus: status,
      AccountSid: accountSid,
      From: message.from,
      To: message.to,
      ApiVersion: '2010-04-01',
      ...(errorCode === undefined ? {} : { ErrorCode: String(errorCode) }),
    };
    const signature = sign(url, params);
    const record: StatusCallbackRecord = { url, params, signature, answered: 0 };
    try {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, body: new URLSearchParams(params).toString() });
      await response.arrayBuffer();
      record.answered = response.status;
    } catch {
      // The receiver being down is recorded (answered 0), as Twilio would log it.
    }
    callbacks.push(record);
  };
  const reportStatus = (message: TwilioMessageRecord) => {
    const resource = resources.get(message.sid)!;
    const outcome = outcomes.get(message.to.replace(/^whatsapp:/, ''));
    const steps: [string, number | undefined][] = outcome === 'failed' ? [['failed', 30006]] : outcome === 'undelivered' ? [['sent', undefined], ['undelivered', 30003]] : [['sent', undefined], ['delivered', undefined]];
    const run = (async () => {
      for (const [status, errorCode] of steps) {
        Object.assign(resource, { status, error_code: errorCode ?? null, date_updated: twilioDate(Date.now()) });
        if (message.statusCallback) await postCallback(message.statusCallback, message, status, errorCode);
      }
    })();
    pendingCallbacks.add(run);
    void run.finally(() => pendingCallbacks.delete(run));
  };

  const createMessage = (res: http.ServerResponse, form: URLSearchParams, base: string) => {
    const to = form.get('To') ?? '';
    const from = form.get('From');
    const serviceSid = form.get('MessagingServiceSid');
    const body = form.get('Body');
    const channel = to.startsWith('whatsapp:') ? 'whatsapp' : 'sms';
    const number = to.replace(/^whatsapp:/, '');
    if (!to) return error(res, 400, 21604, "A 'To' phone number is required.");
    if (!from && !serviceSid) return error(res, 400, 21603, "A 'From' phone number is required.");
    if (from && from.startsWith('whatsapp:') !== (channel === 'whatsapp')) return error(res, 400, 21910, 'Invalid From and To pair. From and To should be of the same channel');
    if (from && !E164.test(from.replace(/^whatsapp:/, ''))) return error(res, 400, 21212, `The 'From' number ${from} is not a valid phone number, shortcode, or alphanumeric sender ID.`);
    if (serviceSid && !/^MG[0-9a-f]{32}$/i.test(serviceSid)) return error(res, 400, 21701, `The Messaging Service Sid ${serviceSid} is invalid.`);
    if (!E164.test(number) || invalidNumbers.has(number)) return error(res, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    if (blockedNumbers.has(number)) return error(res, 400, 21610, 'Attempt to send to unsubscribed recipient');
    if (!body) return error(res, 400, 21602, 'Message body is required.');
    if (body.length > 1600) return error(res, 400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
    const sid = `SM${randomBytes(16).toString('hex')}`;
    const now = Date.now();
    const message: TwilioMessageRecord = { sid, to, from: from ?? serviceSid!, body, channel, statusCallback: form.get('StatusCallback'), receivedAt: now };
    const uri = `${base}/Messages/${sid}.json`;
    const resource: Record<string, unknown> = {
      sid,
      account_sid: accountSid,
      api_version: '2010-04-01',
      to,
      from: from ?? null,
      messaging_service_sid: serviceSid ?? null,
      body,
      // Twilio answers "accepted" while a Messaging Service still has to pick the sender.
      status: from ? 'queued' : 'accepted',
      num_segments: String(segmentsOf(body)),
      num_media: '0',
      direction: 'outbound-api',
      date_created: twilioDate(now),
      date_updated: twilioDate(now),
      date_sent: null,
      price: null,
      price_unit: 'USD',
      error_code: null,
      error_message: null,
      uri,
      subresource_uris: { media: uri.replace(/\.json$/, '/Media.json') },
    };
    messages.push(message);
    resources.set(sid, resource);
    send(res, 201, resource);
    reportStatus(message);
  };

  const blockedNumbers = new Set<string>();
  const invalidNumbers = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = req.method ?? 'GET';
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      requests.push({ method, path: url.pathname, authorization: req.headers.authorization ?? null, form: Object.fromEntries(form) });
      const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return error(res, 401, 20003, 'Authenticate');
      const base = `/2010-04-01/Accounts/${accountSid}`;
      if (method === 'POST' && url.pathname === `${base}/Messages.json`) {
        if (held) {
          heldCount++;
          await new Promise<void>((resolve) => held!.push(resolve));
          heldCount--;
        }
        const failure = failures.shift();
        if (failure) return error(res, failure.status, failure.code, failure.message, failure.retryAfter === undefined ? {} : { 'retry-after': String(failure.retryAfter) });
        return createMessage(res, form, base);
      }
      const read = new RegExp(`^${base}/Messages/(SM[0-9a-f]{32})\\.json$`).exec(url.pathname);
      if (method === 'GET' && read) {
        const resource = resources.get(read[1]!);
        return resource ? send(res, 200, resource) : error(res, 404, 20404, `The requested resource ${url.pathname} was not found`);
      }
      return error(res, 404, 20404, `The requested resource ${url.pathname} was not found`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const release = () => {
    const waiting = held ?? [];
    held = null;
    for (const resume of waiting) resume();
  };
  const until = async <T>(done: () => T | undefined, what: string, timeoutMs: number): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = done();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`fake Twilio: timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  return {
    apiUrl: `http://127.0.0.1:${port}`,
    accountSid,
    authToken,
    requests,
    messages,
    callbacks,
    blockedNumbers,
    invalidNumbers,
    failNext(count, failure) {
      for (let i = 0; i < count; i++) failures.push(failure);
    },
    numberStatus(to, outcome) {
      outcomes.set(to, outcome);
    },
    hold() {
      held ??= [];
    },
    release,
    waitForHeld: (count, timeoutMs = 5000) => until(() => (heldCount >= count ? true : undefined), `${count} held sends`, timeoutMs).then(() => undefined),
    waitForMessages: (count, timeoutMs = 5000) => until(() => (messages.length >= count ? messages.slice() : undefined), `${count} messages`, timeoutMs),
    waitForCallbacks: (count, timeoutMs = 5000) => until(() => (callbacks.length >= count ? callbacks.slice() : undefined), `${count} status callbacks`, timeoutMs),
    sign,
    async close() {
      release();
      await Promise.allSettled([...pendingCallbacks]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
