// Twilio's Programmable Messaging REST API (documented at twilio.com/docs/messaging/api/message-resource,
// base https://api.twilio.com) as svc uses it: one endpoint, POST .../Accounts/{AccountSid}/Messages.json,
// for SMS and WhatsApp, authenticated with HTTP Basic (Account SID, Auth Token); and Twilio's webhook
// signature (X-Twilio-Signature) for the status callbacks it posts back. Plain HTTP through the guarded
// fetch rather than the twilio package: the base URL must be configurable (a local Twilio in tests).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { maskPhoneNumber } from '../../lib/phone-numbers.js';
import { OutboundError, outboundFetch } from '../outbound-fetch.js';
import { jsonObject, retryAfterMs, stringField } from '../provider-errors.js';

export interface TwilioConfig {
  accountSid: string;
  authToken: string;
  /** https://api.twilio.com, or a local server in tests. */
  apiUrl: string;
  /** The E.164 number SMS are sent from, or: */
  smsFrom?: string;
  /** A Messaging Service (MG...) that picks the sender; used when `smsFrom` is not set. */
  messagingServiceSid?: string;
  /** The E.164 number enabled for WhatsApp. */
  whatsappFrom?: string;
  /** Where Twilio posts the message's status changes (sent, delivered, undelivered, failed). */
  statusCallbackUrl?: string;
  allowPrivate: boolean;
  timeoutMs: number;
}

export type TwilioFailureKind = 'invalid_number' | 'unsubscribed' | 'auth' | 'rate_limited' | 'unavailable' | 'rejected';

export class TwilioError extends Error {
  constructor(
    readonly kind: TwilioFailureKind,
    message: string,
    /** Twilio's error code (twilio.com/docs/api/errors), null when it gave none. */
    readonly code: number | null,
    /** The HTTP status, 0 when there was no answer. */
    readonly status: number,
    /** Sending again cannot succeed (the same number, text and account would fail the same way). */
    readonly permanent: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'TwilioError';
  }
}

export interface TwilioMessage {
  channel: 'sms' | 'whatsapp';
  /** E.164. */
  to: string;
  body: string;
  /**
   * Accepted for callers that have one, not used: alphanumeric sender IDs need registering per country
   * (and cannot be replied to), so svc always sends from the configured number or Messaging Service.
   */
  senderName?: string;
}

const E164 = /^\+[1-9]\d{1,14}$/;
const ACCOUNT_SID = /^AC[0-9a-fA-F]{32}$/;
const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;
const INVALID_NUMBER_CODES = new Set([21211, 21614, 21408]);
const UNSUBSCRIBED_CODE = 21610;
const AUTH_CODE = 20003;
const RATE_LIMIT_CODE = 20429;
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The message accepted by Twilio (queued or accepted; delivery is reported to the status callback). */
export async function sendTwilioMessage(config: TwilioConfig, message: TwilioMessage): Promise<{ sid: string; status: string }> {
  const what = `sending a ${message.channel === 'whatsapp' ? 'WhatsApp message' : 'SMS'} to ${maskPhoneNumber(message.to)}`;
  const fail = (kind: TwilioFailureKind, line: string, code: number | null, status: number, permanent: boolean, retryAfter?: number) =>
    new TwilioError(kind, redact(`${what}: ${line}`, config.authToken), code, status, permanent, retryAfter);
  if (!E164.test(message.to)) throw fail('invalid_number', 'the number is not in E.164 form', null, 0, true);

  const form = new URLSearchParams();
  if (message.channel === 'whatsapp') {
    form.set('To', `whatsapp:${message.to}`);
    if (config.whatsappFrom) form.set('From', `whatsapp:${config.whatsappFrom}`);
    else if (config.messagingServiceSid) form.set('MessagingServiceSid', config.messagingServiceSid);
    else throw fail('rejected', 'no WhatsApp sender is configured (TWILIO_WHATSAPP_PHONE_NUMBER)', null, 0, true);
  } else {
    form.set('To', message.to);
    if (config.smsFrom) form.set('From', config.smsFrom);
    else if (config.messagingServiceSid) form.set('MessagingServiceSid', config.messagingServiceSid);
    else throw fail('rejected', 'no SMS sender is configured (TWILIO_PHONE_NUMBER or TWILIO_MESSAGING_SERVICE_SID)', null, 0, true);
  }
  form.set('Body', message.body);
  if (config.statusCallbackUrl) form.set('StatusCallback', config.statusCallbackUrl);

  const url = `${config.apiUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(config.accountSid)}/Messages.json`;
  const fetchGuarded = outboundFetch({ allowPrivate: config.allowPrivate, timeoutMs: config.timeoutMs, maxResponseBytes: MAX_ANSWER_BYTES });
  let status: number;
  let headers: Headers;
  let body: Record<string, unknown> | null;
  try {
    const response = await fetchGuarded(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${config.accountSid}:${config.authToken}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form.toString(),
    });
    status = response.status;
    headers = response.headers;
    body = jsonObject(await response.text());
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // A URL svc may not call will not become callable by retrying; anything else (timeout, reset) might pass.
    const permanent = error instanceof OutboundError && (error.reason === 'refused_address' || error.reason === 'bad_url');
    throw fail('unavailable', `Twilio could not be reached: ${reason}`, null, 0, permanent);
  }

  if (status >= 200 && status < 300) {
    const sid = stringField(body, 'sid');
    // Twilio took the message, so sending it again would text the person twice: not retried.
    if (!sid) throw fail('rejected', `Twilio answered HTTP ${status} without a message sid`, null, status, true);
    return { sid, status: stringField(body, 'status') ?? 'queued' };
  }

  const code = typeof body?.code === 'number' ? body.code : null;
  const twilioMessage = stringField(body, 'message');
  const line = `Twilio answered HTTP ${status}${code === null ? '' : `, error ${code}`}${twilioMessage ? `: ${twilioMessage.slice(0, 200)}` : ''}`;
  if (code !== null && INVALID_NUMBER_CODES.has(code)) throw fail('invalid_number', line, code, status, true);
  if (code === UNSUBSCRIBED_CODE) throw fail('unsubscribed', line, code, status, true);
  if (status === 401 || code === AUTH_CODE) throw fail('auth', line, code, status, true);
  if (status === 429 || code === RATE_LIMIT_CODE) throw fail('rate_limited', line, code, status, false, retryAfterMs(headers, Date.now()));
  if (status >= 500) throw fail('unavailable', line, code, status, false);
  throw fail('rejected', line, code, status, true);
}

// Twilio's words could echo what was sent; the token must not reach logs through them.
function redact(text: string, secret: string): string {
  return secret === '' ? text : text.split(secret).join('[redacted]');
}

/**
 * Twilio's webhook signature (twilio.com/docs/usage/webhooks/webhooks-security): the full URL Twilio
 * called, followed by every POST parameter's name and value (sorted by name, case-sensitively, nothing
 * between them), HMAC-SHA1 with the Auth Token, base64.
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const names = Object.keys(params).sort();
  const signed = names.reduce((text, name) => `${text}${name}${params[name]}`, url);
  return createHmac('sha1', authToken).update(signed, 'utf8').digest('base64');
}

/** Whether X-Twilio-Signature is Twilio's signature of this URL and these parameters. */
export function verifyTwilioSignature(authToken: string, url: string, params: Record<string, string>, headerValue: string | undefined | null): boolean {
  if (!headerValue) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const given = Buffer.from(headerValue);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

const setting = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value ? value : undefined;
};

function phoneSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  // Twilio's own examples write WhatsApp senders as whatsapp:+1...; both spellings are taken.
  const value = setting(env, name)?.replace(/^whatsapp:/, '');
  if (value !== undefined && !E164.test(value)) throw new Error(`${name} must be a phone number in E.164 form (+ and up to 15 digits), e.g. +14155550100`);
  return value;
}

/**
 * Twilio as configured in the environment, or null when it is not (no Account SID, Auth Token, or
 * sender). A value that is set but malformed is an error naming the variable, whether or not the rest is set.
 */
export function twilioConfigFromEnv(env: NodeJS.ProcessEnv, allowPrivate: boolean): TwilioConfig | null {
  const accountSid = setting(env, 'TWILIO_ACCOUNT_SID');
  if (accountSid !== undefined && !ACCOUNT_SID.test(accountSid)) throw new Error('TWILIO_ACCOUNT_SID must be AC followed by 32 hexadecimal digits');
  const authToken = setting(env, 'TWILIO_AUTH_TOKEN');
  const apiUrl = setting(env, 'TWILIO_API_URL') ?? 'https://api.twilio.com';
  if (!isHttpUrl(apiUrl)) throw new Error('TWILIO_API_URL must be an http(s) URL');
  const smsFrom = phoneSetting(env, 'TWILIO_PHONE_NUMBER');
  const messagingServiceSid = setting(env, 'TWILIO_MESSAGING_SERVICE_SID');
  if (messagingServiceSid !== undefined && !MESSAGING_SERVICE_SID.test(messagingServiceSid)) {
    throw new Error('TWILIO_MESSAGING_SERVICE_SID must be MG followed by 32 hexadecimal digits');
  }
  const whatsappFrom = phoneSetting(env, 'TWILIO_WHATSAPP_PHONE_NUMBER');
  const statusCallbackUrl = setting(env, 'TWILIO_STATUS_CALLBACK_URL');
  if (statusCallbackUrl !== undefined && !isHttpUrl(statusCallbackUrl)) throw new Error('TWILIO_STATUS_CALLBACK_URL must be an http(s) URL');
  const timeout = setting(env, 'SVC_TWILIO_TIMEOUT_MS');
  if (timeout !== undefined && !/^[1-9]\d*$/.test(timeout)) throw new Error('SVC_TWILIO_TIMEOUT_MS must be a positive whole number of milliseconds');

  if (!accountSid || !authToken || (!smsFrom && !messagingServiceSid)) return null;
  return {
    accountSid,
    authToken,
    apiUrl,
    ...(smsFrom ? { smsFrom } : {}),
    ...(messagingServiceSid ? { messagingServiceSid } : {}),
    ...(whatsappFrom ? { whatsappFrom } : {}),
    ...(statusCallbackUrl ? { statusCallbackUrl } : {}),
    allowPrivate,
    timeoutMs: timeout === undefined ? 10_000 : Number(timeout),
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
