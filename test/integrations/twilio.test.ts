// Twilio's messaging adapter against a local Twilio (test/support/fake-twilio.ts): SMS and WhatsApp sends
// (form fields, Basic auth, senders), Twilio's failures typed (invalid number, STOP, credentials, rate
// limits, outages, timeouts) with the Auth Token kept out of messages, the webhook signature against
// Twilio's documented example and the fake's independent signing, configuration from the environment;
// and the phone-number helpers.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type TwilioConfig, TwilioError, sendTwilioMessage, twilioConfigFromEnv, twilioSignature, verifyTwilioSignature } from '../../src/integrations/twilio/client.js';
import { maskPhoneNumber, normalizePhoneNumber } from '../../src/lib/phone-numbers.js';
import { type FakeTwilio, startFakeTwilio } from '../support/fake-twilio.js';

const ACCOUNT_SID = `AC${'a1'.repeat(16)}`;
const AUTH_TOKEN = 'f3c9d2e8b7a6412d9e0c5b4a3f2e1d0c';
const SERVICE_SID = `MG${'b2'.repeat(16)}`;

const isTwilioError = (kind: TwilioError['kind'], check: (error: TwilioError) => boolean = () => true) => (error: unknown) => {
  assert.ok(error instanceof TwilioError, `expected a TwilioError, got ${String(error)}`);
  assert.equal(error.kind, kind, error.message);
  assert.ok(!error.message.includes(AUTH_TOKEN), `the token leaked: ${error.message}`);
  return check(error);
};

describe('Twilio messaging adapter', () => {
  let twilio: FakeTwilio;
  let config: TwilioConfig;
  const received: { url: string; params: Record<string, string>; signature: string | null }[] = [];
  let receiver: http.Server;
  let receiverUrl: string;
  before(async () => {
    twilio = await startFakeTwilio({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN });
    config = { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, apiUrl: twilio.apiUrl, smsFrom: '+14155550100', allowPrivate: true, timeoutMs: 2000 };
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ url: `${receiverUrl}${req.url!.replace(/^\//, '')}`, params: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))), signature: (req.headers['x-twilio-signature'] as string | undefined) ?? null });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await twilio.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  test('an SMS: form-encoded To, From, Body with Basic auth, no sender name or service in the form', async () => {
    const sent = await sendTwilioMessage(config, { channel: 'sms', to: '+4915112345678', body: 'Your booking with Ada is confirmed for Tue 10:30 (Europe/Berlin).', senderName: 'AdaClinic' });
    assert.match(sent.sid, /^SM[0-9a-f]{32}$/);
    assert.equal(sent.status, 'queued');
    const request = twilio.requests.at(-1)!;
    assert.equal(request.method, 'POST');
    assert.equal(request.path, `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    assert.equal(request.authorization, `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`);
    assert.deepEqual(request.form, { To: '+4915112345678', From: '+14155550100', Body: 'Your booking with Ada is confirmed for Tue 10:30 (Europe/Berlin).' });
    const message = twilio.messages.at(-1)!;
    assert.deepEqual([message.sid, message.channel, message.to, message.from], [sent.sid, 'sms', '+4915112345678', '+14155550100']);
  });

  test('WhatsApp: both numbers prefixed with whatsapp:, and refused before any call without a WhatsApp sender', async () => {
    const sent = await sendTwilioMessage({ ...config, whatsappFrom: '+14155238886' }, { channel: 'whatsapp', to: '+447911123456', body: 'Reminder: tomorrow 09:00' });
    assert.deepEqual(twilio.requests.at(-1)!.form, { To: 'whatsapp:+447911123456', From: 'whatsapp:+14155238886', Body: 'Reminder: tomorrow 09:00' });
    assert.deepEqual([twilio.messages.at(-1)!.sid, twilio.messages.at(-1)!.channel], [sent.sid, 'whatsapp']);
    const before = twilio.requests.length;
    await assert.rejects(sendTwilioMessage(config, { channel: 'whatsapp', to: '+447911123456', body: 'x' }), isTwilioError('rejected', (error) => error.permanent && error.status === 0));
    assert.equal(twilio.requests.length, before);
  });

  test('a Messaging Service sends when no number is configured (Twilio answers accepted)', async () => {
    const { smsFrom: _unused, ...rest } = config;
    const sent = await sendTwilioMessage({ ...rest, messagingServiceSid: SERVICE_SID }, { channel: 'sms', to: '+14155550123', body: 'Hi' });
    assert.equal(sent.status, 'accepted');
    assert.deepEqual(twilio.requests.at(-1)!.form, { To: '+14155550123', MessagingServiceSid: SERVICE_SID, Body: 'Hi' });
  });

  test('status callbacks: signed as Twilio signs, verified, and refused once a parameter or the URL is changed', async () => {
    const callbackUrl = `${receiverUrl}twilio/status?tenant=t1`;
    const from = received.length;
    const callbacksBefore = twilio.callbacks.length;
    const sent = await sendTwilioMessage({ ...config, statusCallbackUrl: callbackUrl }, { channel: 'sms', to: '+14155550124', body: 'Signed' });
    assert.equal(twilio.requests.at(-1)!.form.StatusCallback, callbackUrl);
    await twilio.waitForCallbacks(callbacksBefore + 2);
    const posts = received.slice(from);
    assert.deepEqual(posts.map((post) => [post.url, post.params.MessageSid, post.params.MessageStatus, post.params.AccountSid, post.params.ApiVersion]), [
      [callbackUrl, sent.sid, 'sent', ACCOUNT_SID, '2010-04-01'],
      [callbackUrl, sent.sid, 'delivered', ACCOUNT_SID, '2010-04-01'],
    ]);
    for (const post of posts) {
      assert.equal(post.signature, twilioSignature(AUTH_TOKEN, post.url, post.params));
      assert.equal(verifyTwilioSignature(AUTH_TOKEN, post.url, post.params, post.signature), true);
      assert.equal(verifyTwilioSignature(AUTH_TOKEN, post.url, { ...post.params, MessageStatus: 'failed' }, post.signature), false);
      assert.equal(verifyTwilioSignature(AUTH_TOKEN, post.url.replace('t1', 't2'), post.params, post.signature), false);
      assert.equal(verifyTwilioSignature('0'.repeat(32), post.url, post.params, post.signature), false);
      assert.equal(verifyTwilioSignature(AUTH_TOKEN, post.url, post.params, undefined), false);
    }
    const resource = await fetch(`${twilio.apiUrl}/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${sent.sid}.json`, { headers: { authorization: `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}` } });
    assert.equal(((await resource.json()) as { status: string }).status, 'delivered');
  });

  test('callbacks report undelivered (30003) and failed (30006) numbers', async () => {
    twilio.numberStatus('+14155550125', 'undelivered');
    twilio.numberStatus('+14155550126', 'failed');
    const statusCallbackUrl = `${receiverUrl}status`;
    const from = twilio.callbacks.length;
    const undelivered = await sendTwilioMessage({ ...config, statusCallbackUrl }, { channel: 'sms', to: '+14155550125', body: 'a' });
    await twilio.waitForCallbacks(from + 2);
    const failed = await sendTwilioMessage({ ...config, statusCallbackUrl }, { channel: 'sms', to: '+14155550126', body: 'b' });
    const callbacks = (await twilio.waitForCallbacks(from + 3)).slice(from);
    assert.deepEqual(callbacks.map((callback) => [callback.params.MessageSid, callback.params.MessageStatus, callback.params.ErrorCode, callback.answered]), [
      [undelivered.sid, 'sent', undefined, 204],
      [undelivered.sid, 'undelivered', '30003', 204],
      [failed.sid, 'failed', '30006', 204],
    ]);
  });

  test('invalid numbers: refused by Twilio (21211, 21614, 21408) or before any call, permanently', async () => {
    twilio.invalidNumbers.add('+14155550199');
    await assert.rejects(sendTwilioMessage(config, { channel: 'sms', to: '+14155550199', body: 'x' }), isTwilioError('invalid_number', (error) => error.code === 21211 && error.status === 400 && error.permanent));
    for (const code of [21614, 21408]) {
      twilio.failNext(1, { status: 400, code, message: 'not deliverable' });
      await assert.rejects(sendTwilioMessage(config, { channel: 'sms', to: '+14155550127', body: 'x' }), isTwilioError('invalid_number', (error) => error.code === code && error.permanent));
    }
    const before = twilio.requests.length;
    await assert.rejects(sendTwilioMessage(config, { channel: 'sms', to: '4155550100', body: 'x' }), isTwilioError('invalid_number', (error) => error.status === 0 && error.permanent));
    assert.equal(twilio.requests.length, before);
  });

  test('a recipient who replied STOP (21610) is unsubscribed, permanently; the message names the number masked', async () => {
    twilio.blockedNumbers.add('+14155550198');
    await assert.rejects(sendTwilioMessage(config, { channel: 'sms', to: '+14155550198', body: 'x' }), isTwilioError('unsubscribed', (error) =>
      error.code === 21610 && error.permanent && error.message.includes('+1415*****98') && !error.message.includes('+14155550198')));
  });

  test('wrong credentials (401, 20003) are an auth failure that names neither token', async () => {
    const wrongToken = 'e'.repeat(32);
    await assert.rejects(sendTwilioMessage({ ...config, authToken: wrongToken }, { channel: 'sms', to: '+14155550128', body: 'x' }), isTwilioError('auth', (error) =>
      error.status === 401 && error.code === 20003 && error.permanent && !error.message.includes(wrongToken)));
  });

  test('rate limits (429, 20429) are retried after Retry-After; other 4xx are rejected for good', async () => {
    twilio.failNext(1, { status: 429, code: 20429, message: 'Too Many Requests', retryAfter: 7 });
    await assert.rejects(sendTwilioMessage(config, { channel: 'sms', to: '+14155550129', body: 'x' }), isTwilioError('rate_limited', (error) => error.retryAfterMs === 7000 && !error.permanent && error.code === 20429));
    await assert.rejects(sendTwilioMessage(config, { channel: 'sms', to: '+14155550129', body: '' }), isTwilioError('rejected', (error) => error.code === 21602 && error.status === 400 && error.permanent));
    assert.equal((await sendTwilioMessage(config, { channel: 'sms', to: '+14155550129', body: 'after the limit' })).status, 'queued');
  });

  test('outages (5xx) are unavailable and retryable; a message echoing the token is redacted', async () => {
    twilio.failNext(2, { status: 500, code: 20500, message: `Internal error for ${AUTH_TOKEN}` });
    for (let attempt = 0; attempt < 2; attempt++) {
      await assert.rejects(sendTwilioMessage(config, { channel: 'sms', to: '+14155550130', body: 'x' }), isTwilioError('unavailable', (error) => error.status === 500 && !error.permanent && error.message.includes('[redacted]')));
    }
    assert.equal((await sendTwilioMessage(config, { channel: 'sms', to: '+14155550130', body: 'x' })).status, 'queued');
  });

  test('a Twilio that never answers times out as unavailable; a closed port is unavailable too', async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const started = Date.now();
    await assert.rejects(sendTwilioMessage({ ...config, apiUrl: `http://127.0.0.1:${port}`, timeoutMs: 300 }, { channel: 'sms', to: '+14155550131', body: 'x' }), isTwilioError('unavailable', (error) =>
      error.status === 0 && !error.permanent && /timed out/.test(error.message)));
    assert.ok(Date.now() - started < 2000);
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    await assert.rejects(sendTwilioMessage({ ...config, apiUrl: `http://127.0.0.1:${port}` }, { channel: 'sms', to: '+14155550131', body: 'x' }), isTwilioError('unavailable', (error) => !error.permanent));
  });

  test('a private address is refused for good unless allowed', async () => {
    await assert.rejects(sendTwilioMessage({ ...config, allowPrivate: false }, { channel: 'sms', to: '+14155550132', body: 'x' }), isTwilioError('unavailable', (error) => error.permanent && /non-public/.test(error.message)));
  });

  test('a held send is answered, and recorded, only once released', async () => {
    twilio.hold();
    const count = twilio.messages.length;
    const sending = sendTwilioMessage(config, { channel: 'sms', to: '+14155550133', body: 'held' });
    await twilio.waitForHeld(1);
    assert.equal(twilio.messages.length, count);
    twilio.release();
    const sent = await sending;
    assert.equal((await twilio.waitForMessages(count + 1)).at(-1)!.sid, sent.sid);
  });
});

describe('Twilio webhook signature', () => {
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const params = { CallSid: 'CA1234567890ABCDE', Caller: '+12349013030', Digits: '1234', From: '+12349013030', To: '+18005551212' };

  test("Twilio's documented example", () => {
    assert.equal(twilioSignature('12345', url, params), '0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
    assert.equal(verifyTwilioSignature('12345', url, params, '0/KCTR6DLpKmkAf8muzZqo1nDgQ='), true);
    assert.equal(verifyTwilioSignature('12345', url, { ...params, Digits: '1235' }, '0/KCTR6DLpKmkAf8muzZqo1nDgQ='), false);
    assert.equal(verifyTwilioSignature('12345', url, params, '0/KCTR6DLpKmkAf8muzZqo1nDgQ'), false);
  });

  test('names sorted case-sensitively, as the fake signs independently', async () => {
    const fake = await startFakeTwilio({ authToken: '12345' });
    try {
      const mixed = { b: '2', A: '1', a: '3', Body: 'é ✓', Z: '' };
      assert.equal(twilioSignature('12345', url, mixed), fake.sign(url, mixed));
      assert.equal(twilioSignature('12345', url, params), fake.sign(url, params));
    } finally {
      await fake.close();
    }
  });
});

describe('Twilio configuration from the environment', () => {
  const complete = { TWILIO_ACCOUNT_SID: ACCOUNT_SID, TWILIO_AUTH_TOKEN: AUTH_TOKEN, TWILIO_PHONE_NUMBER: '+14155550100' };

  test('null until Account SID, Auth Token and a sender are all set', () => {
    assert.equal(twilioConfigFromEnv({}, false), null);
    assert.equal(twilioConfigFromEnv({ ...complete, TWILIO_PHONE_NUMBER: undefined }, false), null);
    assert.equal(twilioConfigFromEnv({ ...complete, TWILIO_AUTH_TOKEN: '' }, false), null);
    assert.equal(twilioConfigFromEnv({ ...complete, TWILIO_ACCOUNT_SID: undefined }, false), null);
  });

  test('defaults, and every setting read', () => {
    assert.deepEqual(twilioConfigFromEnv(complete, false), { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, apiUrl: 'https://api.twilio.com', smsFrom: '+14155550100', allowPrivate: false, timeoutMs: 10_000 });
    const full = {
      TWILIO_ACCOUNT_SID: ACCOUNT_SID,
      TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TWILIO_API_URL: 'http://127.0.0.1:9999',
      TWILIO_MESSAGING_SERVICE_SID: SERVICE_SID,
      TWILIO_WHATSAPP_PHONE_NUMBER: 'whatsapp:+14155238886',
      TWILIO_STATUS_CALLBACK_URL: 'https://svc.example.test/v2/twilio/status',
      SVC_TWILIO_TIMEOUT_MS: '2500',
    };
    assert.deepEqual(twilioConfigFromEnv(full, true), {
      accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, apiUrl: 'http://127.0.0.1:9999', messagingServiceSid: SERVICE_SID, whatsappFrom: '+14155238886',
      statusCallbackUrl: 'https://svc.example.test/v2/twilio/status', allowPrivate: true, timeoutMs: 2500,
    });
  });

  test('a malformed value names its variable, even when the rest is incomplete', () => {
    const cases: [Record<string, string>, string][] = [
      [{ TWILIO_ACCOUNT_SID: 'AC123' }, 'TWILIO_ACCOUNT_SID'],
      [{ ...complete, TWILIO_PHONE_NUMBER: '415 555 0100' }, 'TWILIO_PHONE_NUMBER'],
      [{ ...complete, TWILIO_WHATSAPP_PHONE_NUMBER: 'whatsapp:14155238886' }, 'TWILIO_WHATSAPP_PHONE_NUMBER'],
      [{ ...complete, TWILIO_MESSAGING_SERVICE_SID: 'MGxyz' }, 'TWILIO_MESSAGING_SERVICE_SID'],
      [{ ...complete, TWILIO_API_URL: 'ftp://api.twilio.com' }, 'TWILIO_API_URL'],
      [{ ...complete, TWILIO_STATUS_CALLBACK_URL: 'not a url' }, 'TWILIO_STATUS_CALLBACK_URL'],
      [{ ...complete, SVC_TWILIO_TIMEOUT_MS: '10s' }, 'SVC_TWILIO_TIMEOUT_MS'],
    ];
    for (const [env, variable] of cases) {
      assert.throws(() => twilioConfigFromEnv(env, false), (error: unknown) => error instanceof Error && error.message.startsWith(variable) && !error.message.includes(AUTH_TOKEN), variable);
    }
  });
});

describe('phone numbers', () => {
  test('E.164 from international forms; null without +, or for invalid numbers', () => {
    const cases: [string, string | null][] = [
      ['+1 415 555 0100', '+14155550100'],
      ['+1 (415) 555-0100', '+14155550100'],
      [' +4915112345678 ', '+4915112345678'],
      ['+9779841234567', '+9779841234567'],
      ['+44 7911 123456', '+447911123456'],
      // Ofcom keeps 07700 900000-900999 for drama: shaped like a mobile, not a valid number.
      ['+44 7700 900123', null],
      ['+1234', null],
      ['0151 1234', null],
      ['4155550100', null],
      ['+1 415 000 0100', null],
      ['+1 415 555 0100 ext. 2', null],
      ['+1-800-FLOWERS', null],
      ['', null],
    ];
    assert.deepEqual(cases.map(([input]) => [input, normalizePhoneNumber(input)]), cases);
  });

  test('masked: country code, 3 digits and the last 2 kept', () => {
    assert.equal(maskPhoneNumber('+14155550100'), '+1415*****00');
    assert.equal(maskPhoneNumber('+4915112345678'), '+49151******78');
    assert.equal(maskPhoneNumber('+9779841234567'), '+977984*****67');
    assert.equal(maskPhoneNumber('+6834001'), '+683**01');
    assert.equal(maskPhoneNumber('whatsapp:+14155550100'), '***');
  });
});
