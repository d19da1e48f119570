import { randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../app/config.js';
import type { Db } from '../../db/client.js';
import { sha256Hex } from '../../lib/crypto.js';
import { badRequest, conflict, DomainError, invalidField, notFound } from '../../lib/errors.js';
import { normalizePhoneNumber } from '../../lib/phone-numbers.js';
import type { SecretBox } from '../../lib/secrets.js';
import { MAIL_MAX_ATTEMPTS, MAIL_SEND_JOB } from '../mail/mail-sender.js';
import { insertMailMessages } from '../mail/mail.repository.js';
import { TEXT_MAX_ATTEMPTS } from '../text-messages/text-message-sender.js';
import { insertTextMessages } from '../text-messages/text-messages.repository.js';
import * as repo from './verified-resources.repository.js';
import type { Owner, ResourceKind, VerifiedRow, WindowCount } from './verified-resources.repository.js';

export type { Owner, ResourceKind, VerifiedRow };

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** The reference's throttles of these routes, per caller: code requests and (here: wrong) verifies a minute. */
const REQUESTS_PER_MINUTE: Readonly<Record<ResourceKind, number>> = { email: 5, phone: 3 };
const WRONG_CODES_PER_MINUTE = 3;
/** Wrong tries a code survives: after them even the right code is refused (a new one must be requested). */
const TRIES_PER_CODE = 5;

export interface VerificationDeps {
  config: Pick<Config, 'verification' | 'twilio'>;
  secrets: SecretBox;
  now: Date;
}

/** The caller asking: the mail of a code is dated in their zone. */
export interface Caller {
  id: number;
  timeZone: string | null;
}

/** Lower case: addresses are compared and stored so (the format was checked with the body). */
const normalizeEmail = (email: string) => email.trim().toLowerCase();

function normalizePhone(phone: string): string {
  const e164 = normalizePhoneNumber(phone);
  if (e164 === null) throw invalidField('phone', 'must be a valid phone number written internationally: + and the country code, e.g. +37255556666', phone);
  return e164;
}

const destinationOf = (kind: ResourceKind, value: string) => (kind === 'email' ? normalizeEmail(value) : normalizePhone(value));

/** Seconds until the oldest row of a full window leaves it (at least 1). */
const secondsUntilFree = (window: WindowCount, windowMs: number, now: Date) => Math.max(1, Math.ceil(((window.oldest?.getTime() ?? now.getTime()) + windowMs - now.getTime()) / 1000));
const per = (windowMs: number) => (windowMs === MINUTE_MS ? 'a minute' : 'an hour');

function tooManyRequests(whom: string, limit: number, windowMs: number, retryAfterSeconds: number): DomainError {
  return new DomainError(
    'too_many_requests',
    'too_many_verification_requests',
    `Too many verification codes requested ${whom}: at most ${limit} ${per(windowMs)}. Try again in ${retryAfterSeconds} seconds.`,
    { limitPerWindow: limit, windowSeconds: windowMs / 1000, retryAfterSeconds },
  );
}

function tooManyWrongCodes(limit: number, windowMs: number, retryAfterSeconds: number): DomainError {
  return new DomainError('too_many_requests', 'too_many_wrong_codes', `Too many wrong verification codes: at most ${limit} ${per(windowMs)}. Try again in ${retryAfterSeconds} seconds.`, {
    limitPerWindow: limit,
    windowSeconds: windowMs / 1000,
    retryAfterSeconds,
  });
}

/**
 * What bounds the codes svc sends (no SMS pumping): per caller a few a minute of each kind (the
 * reference's throttle) and `perCallerPerHour` in all; per destination `perDestinationPerHour` whoever
 * asks. Counted from the stored codes under the caller's and the destination's locks, so every process
 * and every concurrent request counts alike.
 */
async function checkRequestLimits(tx: Db, deps: VerificationDeps, userId: number, kind: ResourceKind, destination: string): Promise<void> {
  const { now } = deps;
  const limits = deps.config.verification;
  const since = (windowMs: number) => new Date(now.getTime() - windowMs);
  const minute = await repo.countCodes(tx, { userId, kind }, since(MINUTE_MS));
  if (minute.count >= REQUESTS_PER_MINUTE[kind]) throw tooManyRequests('by this caller', REQUESTS_PER_MINUTE[kind], MINUTE_MS, secondsUntilFree(minute, MINUTE_MS, now));
  const hour = await repo.countCodes(tx, { userId }, since(HOUR_MS));
  if (hour.count >= limits.perCallerPerHour) throw tooManyRequests('by this caller', limits.perCallerPerHour, HOUR_MS, secondsUntilFree(hour, HOUR_MS, now));
  const target = await repo.countCodes(tx, { kind, destination }, since(HOUR_MS));
  if (target.count >= limits.perDestinationPerHour) {
    throw tooManyRequests(kind === 'email' ? 'for this address' : 'for this number', limits.perDestinationPerHour, HOUR_MS, secondsUntilFree(target, HOUR_MS, now));
  }
}

function codeText(code: string, ttlMs: number): string {
  const minutes = Math.max(1, Math.ceil(ttlMs / MINUTE_MS));
  return `Your svc verification code is ${code}. It expires in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/** Queues the code in the request's transaction: the outboxes send it once the request commits. */
async function sendCode(tx: Db, deps: VerificationDeps, caller: Caller, kind: ResourceKind, destination: string, code: string): Promise<void> {
  const text = codeText(code, deps.config.verification.codeTtlMs);
  if (kind === 'phone') {
    await insertTextMessages(tx, [{ uid: randomUUID(), channel: 'sms', toNumber: destination, body: deps.secrets.seal(text), bodySealed: true, purpose: 'verification' }], TEXT_MAX_ATTEMPTS);
    return;
  }
  const mail = `${text}\n\nEnter it where you asked to verify this address. If you did not ask, ignore this message.\n`;
  await insertMailMessages(
    tx,
    [
      {
        uid: randomUUID(),
        bookingEventId: null,
        kind: 'verificationCode',
        recipientEmail: destination,
        recipientName: null,
        // The recipient is not a user of the team yet: 'invitee' is the role of mail sent to such addresses.
        recipientRole: 'invitee',
        recipientTimeZone: caller.timeZone || 'UTC',
        recipientLocale: null,
        subject: 'Your svc verification code',
        textBody: deps.secrets.seal(mail),
        htmlBody: null,
        bodySealed: true,
      },
    ],
    MAIL_SEND_JOB,
    MAIL_MAX_ATTEMPTS,
  );
}

/**
 * Sends a new 6-digit code to an address or number, for the caller or for a team (`owner`). Only its
 * SHA-256 is stored; it lasts `codeTtlMs` and replaces the caller's earlier unused codes for it.
 */
export async function requestCode(tx: Db, deps: VerificationDeps, caller: Caller, owner: Owner, kind: ResourceKind, value: string): Promise<void> {
  if (kind === 'phone' && deps.config.twilio === null) {
    throw badRequest('text_provider_not_configured', 'SMS verification needs an SMS provider, and none is configured: the operator of this svc sets the TWILIO_* settings');
  }
  const destination = destinationOf(kind, value);
  if (await repo.findVerified(tx, kind, owner, destination)) {
    if (kind === 'email') throw conflict('email_already_verified', 'Email is already verified.');
    throw conflict('phone_already_verified', 'Phone number is already verified.');
  }
  await repo.lockCaller(tx, owner.userId);
  await repo.lockDestination(tx, kind, destination);
  await checkRequestLimits(tx, deps, owner.userId, kind, destination);
  const target = { owner, kind, destination };
  await repo.supersedeCodes(tx, target, deps.now);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await repo.insertCode(tx, target, { codeHash: sha256Hex(code), expiresAt: new Date(deps.now.getTime() + deps.config.verification.codeTtlMs), createdAt: deps.now });
  await sendCode(tx, deps, caller, kind, destination, code);
}

function sameHash(storedHex: string, code: string): boolean {
  const stored = Buffer.from(storedHex, 'hex');
  const given = Buffer.from(sha256Hex(code), 'hex');
  return stored.length === given.length && timingSafeEqual(stored, given);
}

/** A verify's result: refusals are returned, not thrown, so that the wrong code they record is committed. */
export type VerifyOutcome = { verified: VerifiedRow } | { refused: DomainError };

/**
 * Checks a code against the caller's latest unused one for the destination. Every refused code is one
 * failure of the caller and one try of that code; past the caller's limits every verify is refused
 * before any code is compared. The right code is used up and the address or number stored for the
 * owner (the existing row when it already is).
 */
export async function verifyCode(tx: Db, deps: VerificationDeps, owner: Owner, kind: ResourceKind, value: string, code: string): Promise<VerifyOutcome> {
  const destination = destinationOf(kind, value);
  const { now } = deps;
  await repo.lockCaller(tx, owner.userId);
  const hourly = deps.config.verification.wrongCodesPerHour;
  const hour = await repo.countFailures(tx, owner.userId, new Date(now.getTime() - HOUR_MS));
  if (hour.count >= hourly) return { refused: tooManyWrongCodes(hourly, HOUR_MS, secondsUntilFree(hour, HOUR_MS, now)) };
  const minute = await repo.countFailures(tx, owner.userId, new Date(now.getTime() - MINUTE_MS));
  if (minute.count >= WRONG_CODES_PER_MINUTE) return { refused: tooManyWrongCodes(WRONG_CODES_PER_MINUTE, MINUTE_MS, secondsUntilFree(minute, MINUTE_MS, now)) };

  const target = { owner, kind, destination };
  const stored = await repo.findLatestUnusedCode(tx, target);
  const live = stored && stored.expiresAt > now && stored.failedAttempts < TRIES_PER_CODE ? stored : undefined;
  if (!live || !sameHash(live.codeHash, code.trim())) {
    if (live) await repo.addFailedAttempt(tx, live.id);
    await repo.insertFailure(tx, owner.userId, stored?.id ?? null, now);
    if (kind === 'email') return { refused: badRequest('invalid_email_verification_code', 'Invalid Verification Code') };
    return { refused: badRequest('invalid_phone_verification_code', 'Could not verify phone number.') };
  }
  await repo.markCodeUsed(tx, live.id, now);
  const verified = (await repo.insertVerified(tx, kind, owner, destination)) ?? (await repo.findVerified(tx, kind, owner, destination));
  if (!verified) throw new Error(`the verified ${kind} of code ${live.id} was neither stored nor found`);
  return { verified };
}

export function listVerified(db: Db, kind: ResourceKind, owner: Owner, page: { skip: number; take: number }): Promise<VerifiedRow[]> {
  return repo.listVerified(db, kind, owner, page);
}

/** One of the owner's verified addresses or numbers; another owner's is not found. */
export async function getVerified(db: Db, kind: ResourceKind, owner: Owner, id: number): Promise<VerifiedRow> {
  const row = await repo.findVerifiedById(db, kind, owner, id);
  if (row) return row;
  if (kind === 'email') throw notFound('verified_email_not_found', `Verified email with id ${id} not found`);
  throw notFound('verified_phone_not_found', `Verified phone number with id ${id} not found`);
}

/**
 * Housekeeping (for src/jobs/housekeeping.ts): codes and wrong codes past every window that counts them
 * (an hour), a code only once it has expired too. Each deletes at most `limit` rows.
 */
export const deleteExpiredVerificationCodes = (db: Db, now: Date, limit: number) => repo.deleteCodesBefore(db, new Date(now.getTime() - HOUR_MS), now, limit);
export const deleteExpiredVerificationFailures = (db: Db, now: Date, limit: number) => repo.deleteFailuresBefore(db, new Date(now.getTime() - HOUR_MS), limit);
