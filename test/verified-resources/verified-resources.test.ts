// Verified emails and phone numbers over HTTP: a 6-digit code goes out by mail (a real SMTP server on
// loopback) or SMS (a local Twilio), is read back from the message received and sent to verify. Codes are
// single use, short-lived, burned after 5 wrong tries and stored only hashed; requests and wrong codes are
// limited in the database per caller and per destination; teams and organization teams verify for
// themselves, through their admins only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { mailMessages, textMessages, verificationCodes, verificationFailures } from '../../src/db/schema.js';
import { sha256Hex } from '../../src/lib/crypto.js';
import { deleteExpiredVerificationCodes, deleteExpiredVerificationFailures } from '../../src/modules/verified-resources/verified-resources.service.js';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/helpers.js';
import { eventually } from '../support/eventually.js';
import { type FakeTwilio, startFakeTwilio } from '../support/fake-twilio.js';
import { addTeamMember, createMember, createOrganization, createOrgMember, createTeam, type Member } from '../support/tenancy.js';
import { type ApiResponse, createTestApp, type TestApp } from '../support/test-app.js';

const MINUTE = 60_000;
const USER = '/v2/verified-resources';
let serial = 0;
const tag = `${process.pid}-${Math.random().toString(36).slice(2, 7)}`;
const address = (label: string) => `${label}-${tag}-${++serial}@verify.example`;
/** A valid German mobile number, new each time. */
const number = () => `+49151${String(30_000_000 + ++serial + (process.pid % 1000) * 10_000)}`;

/** An app whose clock the test moves forward (`shift`), sending mail to `smtp` and SMS to `twilio` when given. */
async function appWith(smtp: SmtpReceiver, twilio: FakeTwilio | null, env: Record<string, string> = {}) {
  const clock = { shift: 0 };
  const texts: Record<string, string> = twilio ? { TWILIO_ACCOUNT_SID: twilio.accountSid, TWILIO_AUTH_TOKEN: twilio.authToken, TWILIO_API_URL: twilio.apiUrl, TWILIO_PHONE_NUMBER: '+15005550006' } : {};
  const api = await createTestApp({ SMTP_URL: smtp.url, SVC_ALLOW_PRIVATE_WEBHOOKS: '1', ...texts, ...env }, undefined, { clock: () => Date.now() + clock.shift });
  return { api, clock };
}

const codeIn = (text: string) => {
  const match = /Your svc verification code is (\d{6})\. It expires in \d+ minutes?\./.exec(text);
  assert.ok(match, `a code in: ${text}`);
  return match[1]!;
};
const otherThan = (code: string) => (code === '000000' ? '111111' : '000000');
const reasonOf = (response: ApiResponse) => [response.status, response.body?.error?.details?.reason];

describe('verified resources: emails and phone numbers proven by a code', () => {
  let smtp: SmtpReceiver;
  let twilio: FakeTwilio;
  let api: TestApp;
  let clock: { shift: number };

  before(async () => {
    smtp = await startSmtpReceiver();
    twilio = await startFakeTwilio();
    ({ api, clock } = await appWith(smtp, twilio));
  });
  after(async () => {
    await api.close();
    await smtp.close();
    await twilio.close();
  });

  /** The code of the `nth` mail to `email` (from 1). */
  async function mailedCode(email: string, nth = 1): Promise<string> {
    await eventually(async () => smtp.to(email).length >= nth, 10_000);
    const mail = smtp.to(email)[nth - 1]!;
    assert.equal(mail.email.subject, 'Your svc verification code');
    return codeIn(mail.email.text!);
  }
  async function textedCode(to: string, nth = 1): Promise<string> {
    await eventually(async () => twilio.messages.filter((message) => message.to === to).length >= nth, 10_000);
    const message = twilio.messages.filter((sent) => sent.to === to)[nth - 1]!;
    assert.equal(message.from, '+15005550006');
    return codeIn(message.body);
  }
  const post = (app: TestApp, key: string, path: string, body: unknown) => app.request('POST', path, { key, body });

  test('a user verifies an email: the code comes by mail, works once, and the address is listed and read by id, by its owner only', async () => {
    const ada = await createMember(api);
    const email = address('Ada.Mixed').replace('Ada.Mixed', 'Ada.MIXED');
    const requested = await post(api, ada.apiKey, `${USER}/emails/verification-code/request`, { email });
    assert.equal(requested.status, 200, requested.text);
    assert.deepEqual(requested.body, { status: 'success' });
    const code = await mailedCode(email.toLowerCase());
    assert.match(smtp.to(email)[0]!.email.text!, /It expires in 10 minutes\./);
    assert.deepEqual((await api.request('GET', `${USER}/emails`, { key: ada.apiKey })).body, { status: 'success', data: [] }, 'nothing is verified before the code');

    const verified = await post(api, ada.apiKey, `${USER}/emails/verification-code/verify`, { email, code });
    assert.equal(verified.status, 200, verified.text);
    const row = verified.body.data;
    assert.deepEqual(row, { id: row.id, email: email.toLowerCase(), userId: ada.user.id });
    assert.ok(Number.isInteger(row.id));

    const again = await post(api, ada.apiKey, `${USER}/emails/verification-code/verify`, { email, code });
    assert.deepEqual(reasonOf(again), [400, 'invalid_email_verification_code'], 'a code works once');
    assert.equal(again.body.error.message, 'Invalid Verification Code');
    const twice = await post(api, ada.apiKey, `${USER}/emails/verification-code/request`, { email: email.toLowerCase() });
    assert.deepEqual(reasonOf(twice), [409, 'email_already_verified']);
    assert.equal(twice.body.error.message, 'Email is already verified.');

    assert.deepEqual((await api.request('GET', `${USER}/emails`, { key: ada.apiKey })).body.data, [row]);
    assert.deepEqual((await api.request('GET', `${USER}/emails?skip=1`, { key: ada.apiKey })).body.data, []);
    assert.deepEqual((await api.request('GET', `${USER}/emails/${row.id}`, { key: ada.apiKey })).body, { status: 'success', data: row });
    const grace = await createMember(api);
    assert.deepEqual(reasonOf(await api.request('GET', `${USER}/emails/${row.id}`, { key: grace.apiKey })), [404, 'verified_email_not_found']);
    assert.deepEqual((await api.request('GET', `${USER}/emails`, { key: grace.apiKey })).body.data, []);
    // Verified for Ada, not for Grace: Grace is sent a code of her own.
    assert.equal((await post(api, grace.apiKey, `${USER}/emails/verification-code/request`, { email })).status, 200);
  });

  test('a user verifies a phone number by SMS: written any international way, stored in E.164; an invalid one is refused naming phone', async () => {
    const ada = await createMember(api);
    const e164 = number();
    const written = `${e164.slice(0, 3)} ${e164.slice(3, 6)} ${e164.slice(6, 10)} ${e164.slice(10)}`;
    assert.equal((await post(api, ada.apiKey, `${USER}/phones/verification-code/request`, { phone: written })).status, 200);
    const code = await textedCode(e164);
    assert.match(twilio.messages.find((message) => message.to === e164)!.body, /^Your svc verification code is \d{6}\. It expires in 10 minutes\.$/);
    const wrong = await post(api, ada.apiKey, `${USER}/phones/verification-code/verify`, { phone: e164, code: otherThan(code) });
    assert.deepEqual(reasonOf(wrong), [400, 'invalid_phone_verification_code']);
    assert.equal(wrong.body.error.message, 'Could not verify phone number.');

    const verified = await post(api, ada.apiKey, `${USER}/phones/verification-code/verify`, { phone: written, code });
    assert.equal(verified.status, 200, verified.text);
    const row = verified.body.data;
    assert.deepEqual(row, { id: row.id, phoneNumber: e164, userId: ada.user.id });
    assert.deepEqual((await api.request('GET', `${USER}/phones`, { key: ada.apiKey })).body.data, [row]);
    assert.deepEqual((await api.request('GET', `${USER}/phones/${row.id}`, { key: ada.apiKey })).body.data, row);
    assert.deepEqual(reasonOf(await api.request('GET', `${USER}/phones/${row.id}`, { key: (await createMember(api)).apiKey })), [404, 'verified_phone_not_found']);
    assert.deepEqual(reasonOf(await post(api, ada.apiKey, `${USER}/phones/verification-code/request`, { phone: e164 })), [409, 'phone_already_verified']);

    const sent = twilio.messages.length;
    for (const phone of ['015112345678', '+49 151 CALL ME', '+1 555']) {
      const refused = await post(api, ada.apiKey, `${USER}/phones/verification-code/request`, { phone });
      assert.deepEqual(reasonOf(refused), [400, 'validation_failed'], phone);
      assert.equal(refused.body.error.details.errors[0].property, 'phone');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(twilio.messages.length, sent, 'nothing was texted for them');
  });

  test('wrong codes: each is refused and counted; a code is burned after 5; a new request replaces the unused code', async () => {
    const ada = await createMember(api);
    const email = address('burn');
    await post(api, ada.apiKey, `${USER}/emails/verification-code/request`, { email });
    const code = await mailedCode(email);
    const verify = (sent: string) => post(api, ada.apiKey, `${USER}/emails/verification-code/verify`, { email, code: sent });
    for (let attempt = 1; attempt <= 5; attempt++) {
      assert.deepEqual(reasonOf(await verify(otherThan(code))), [400, 'invalid_email_verification_code'], `wrong try ${attempt}`);
      // Past the reference's 3 verifies a minute: the per-code limit is what this test reaches.
      clock.shift += MINUTE + 1000;
    }
    const [stored] = await api.runtime.ctx.database.db.select().from(verificationCodes).where(eq(verificationCodes.destination, email));
    assert.equal(stored!.failedAttempts, 5);
    assert.deepEqual(reasonOf(await verify(code)), [400, 'invalid_email_verification_code'], 'burned: even the right code fails');
    const failures = await api.runtime.ctx.database.db.select().from(verificationFailures).where(eq(verificationFailures.userId, ada.user.id));
    assert.equal(failures.length, 6, 'one failure per refused code');

    await post(api, ada.apiKey, `${USER}/emails/verification-code/request`, { email });
    const first = await mailedCode(email, 2);
    await post(api, ada.apiKey, `${USER}/emails/verification-code/request`, { email });
    const second = await mailedCode(email, 3);
    if (first !== second) assert.deepEqual(reasonOf(await verify(first)), [400, 'invalid_email_verification_code'], 'the earlier code is replaced');
    clock.shift += MINUTE + 1000;
    assert.equal((await verify(second)).status, 200);
    if (first !== second) assert.deepEqual(reasonOf(await verify(first)), [400, 'invalid_email_verification_code'], 'the replaced code stays dead once the new one is used');
    const unused = await api.runtime.ctx.database.db.select().from(verificationCodes).where(eq(verificationCodes.destination, email));
    assert.deepEqual(unused.filter((row) => row.usedAt === null), [], 'every code of the address is used up or replaced');
  });

  test('the reference\'s per-minute limits: 5 email and 3 SMS codes a caller, 3 wrong codes', async () => {
    const ada = await createMember(api);
    for (let sent = 1; sent <= 5; sent++) assert.equal((await post(api, ada.apiKey, `${USER}/emails/verification-code/request`, { email: address('minute') })).status, 200);
    const sixth = await post(api, ada.apiKey, `${USER}/emails/verification-code/request`, { email: address('minute') });
    assert.deepEqual(reasonOf(sixth), [429, 'too_many_verification_requests']);
    assert.match(sixth.body.error.message, /^Too many verification codes requested by this caller: at most 5 a minute\. Try again in \d+ seconds\.$/);
    assert.ok(Number(sixth.headers.get('retry-after')) >= 1 && Number(sixth.headers.get('retry-after')) <= 60);
    for (let sent = 1; sent <= 3; sent++) assert.equal((await post(api, ada.apiKey, `${USER}/phones/verification-code/request`, { phone: number() })).status, 200);
    assert.deepEqual(reasonOf(await post(api, ada.apiKey, `${USER}/phones/verification-code/request`, { phone: number() })), [429, 'too_many_verification_requests']);
    const email = address('minute');
    clock.shift += MINUTE + 1000;
    assert.equal((await post(api, ada.apiKey, `${USER}/emails/verification-code/request`, { email })).status, 200, 'a minute later');
    const code = await mailedCode(email);
    for (let attempt = 1; attempt <= 3; attempt++) await post(api, ada.apiKey, `${USER}/emails/verification-code/verify`, { email, code: otherThan(code) });
    const fourth = await post(api, ada.apiKey, `${USER}/emails/verification-code/verify`, { email, code });
    assert.deepEqual(reasonOf(fourth), [429, 'too_many_wrong_codes'], 'even the right code');
    assert.match(fourth.body.error.message, /at most 3 a minute/);
    clock.shift += MINUTE + 1000;
    assert.equal((await post(api, ada.apiKey, `${USER}/emails/verification-code/verify`, { email, code })).status, 200);
  });

  test('the code is stored nowhere in plain text: only its SHA-256, and sealed in the outboxes', async () => {
    const ada = await createMember(api);
    const email = address('sealed');
    const phone = number();
    await post(api, ada.apiKey, `${USER}/emails/verification-code/request`, { email });
    await post(api, ada.apiKey, `${USER}/phones/verification-code/request`, { phone });
    const codes = [await mailedCode(email), await textedCode(phone)];
    const db = api.runtime.ctx.database.db;
    const stored = await db.select().from(verificationCodes).where(eq(verificationCodes.userId, ada.user.id));
    assert.deepEqual(stored.map((row) => row.codeHash).sort(), codes.map(sha256Hex).sort());
    const mail = await db.select().from(mailMessages).where(eq(mailMessages.recipientEmail, email));
    assert.equal(mail.length, 1);
    assert.deepEqual([mail[0]!.bodySealed, mail[0]!.kind, mail[0]!.recipientRole], [true, 'verificationCode', 'invitee']);
    const texts = await db.select().from(textMessages).where(eq(textMessages.toNumber, phone));
    assert.equal(texts.length, 1);
    const everything = JSON.stringify([stored, mail, texts, await db.select().from(verificationCodes), await db.select().from(mailMessages), await db.select().from(textMessages)]);
    for (const code of codes) assert.ok(!everything.includes(code), `${code} is nowhere in the store`);
  });
});

describe('verified resources with small limits, a short code life, no SMS provider', () => {
  let smtp: SmtpReceiver;
  let limited: TestApp;
  let limitedClock: { shift: number };
  let short: TestApp;
  let shortClock: { shift: number };
  before(async () => {
    smtp = await startSmtpReceiver();
    ({ api: limited, clock: limitedClock } = await appWith(smtp, null, { SVC_VERIFICATION_PER_CALLER: '3', SVC_VERIFICATION_PER_DESTINATION: '2', SVC_VERIFICATION_WRONG_CODES: '2' }));
    ({ api: short, clock: shortClock } = await appWith(smtp, null, { SVC_VERIFICATION_CODE_TTL_MS: '1000' }));
  });
  after(async () => {
    await limited.close();
    await short.close();
    await smtp.close();
  });
  const request = (app: TestApp, who: Member, email: string) => app.request('POST', `${USER}/emails/verification-code/request`, { key: who.apiKey, body: { email } });
  const codeFor = async (email: string) => {
    await eventually(async () => smtp.to(email).length > 0, 10_000);
    return codeIn(smtp.to(email).at(-1)!.email.text!);
  };

  test('per caller, across addresses, per hour', async () => {
    const ada = await createMember(limited);
    for (let sent = 1; sent <= 3; sent++) assert.equal((await request(limited, ada, address('caller'))).status, 200);
    const fourth = address('caller');
    const refused = await request(limited, ada, fourth);
    assert.deepEqual(reasonOf(refused), [429, 'too_many_verification_requests']);
    assert.match(refused.body.error.message, /^Too many verification codes requested by this caller: at most 3 an hour\. Try again in \d+ seconds\.$/);
    assert.ok(Number(refused.headers.get('retry-after')) > 3500, refused.headers.get('retry-after') ?? 'no Retry-After');
    assert.deepEqual(await limited.runtime.ctx.database.db.select().from(verificationCodes).where(eq(verificationCodes.destination, fourth)), [], 'no code was made');
    limitedClock.shift += 61 * MINUTE;
    assert.equal((await request(limited, ada, fourth)).status, 200, 'an hour later');
  });

  test('per address, across callers, counted in the database even when requests race', async () => {
    const email = address('target');
    const callers = await Promise.all([1, 2, 3, 4].map(() => createMember(limited)));
    const answers = await Promise.all(callers.map((caller) => request(limited, caller, email)));
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 200, 429, 429]);
    const refused = answers.find((answer) => answer.status === 429)!;
    assert.equal(refused.body.error.details.reason, 'too_many_verification_requests');
    assert.match(refused.body.error.message, /for this address: at most 2 an hour/);
    assert.equal((await limited.runtime.ctx.database.db.select().from(verificationCodes).where(eq(verificationCodes.destination, email))).length, 2);
  });

  test('too many wrong codes in an hour: every verify is 429, the right code too, until the hour has passed (the code has expired by then)', async () => {
    const ada = await createMember(limited);
    const email = address('wrong');
    await request(limited, ada, email);
    const code = await codeFor(email);
    const verify = (sent: string) => limited.request('POST', `${USER}/emails/verification-code/verify`, { key: ada.apiKey, body: { email, code: sent } });
    assert.equal((await verify(otherThan(code))).status, 400);
    assert.equal((await verify(otherThan(code))).status, 400);
    const refused = await verify(code);
    assert.deepEqual(reasonOf(refused), [429, 'too_many_wrong_codes']);
    assert.match(refused.body.error.message, /^Too many wrong verification codes: at most 2 an hour\. Try again in \d+ seconds\.$/);
    assert.ok(refused.headers.get('retry-after'));
    limitedClock.shift += 61 * MINUTE;
    // The code lived 10 minutes: an hour later it has expired, and a new one is needed.
    assert.deepEqual(reasonOf(await verify(code)), [400, 'invalid_email_verification_code']);

    // Housekeeping drops what no window counts any more, and nothing that still counts.
    const db = limited.runtime.ctx.database.db;
    const rowsOf = async () => [(await db.select().from(verificationCodes).where(eq(verificationCodes.destination, email))).length, (await db.select().from(verificationFailures).where(eq(verificationFailures.userId, ada.user.id))).length];
    assert.deepEqual(await rowsOf(), [1, 3]);
    const now = Date.now() + limitedClock.shift;
    await deleteExpiredVerificationCodes(db, new Date(now - 2 * MINUTE), 1000);
    await deleteExpiredVerificationFailures(db, new Date(now - 2 * MINUTE), 1000);
    assert.deepEqual(await rowsOf(), [1, 3], 'all of them were written within the hour before');
    assert.ok((await deleteExpiredVerificationCodes(db, new Date(now), 1000)) >= 1);
    await deleteExpiredVerificationFailures(db, new Date(now), 1000);
    assert.deepEqual(await rowsOf(), [0, 1], 'the code and the first two failures are over an hour old; the last one counts');
    await deleteExpiredVerificationFailures(db, new Date(now + 61 * MINUTE), 1000);
    assert.deepEqual(await rowsOf(), [0, 0]);
  });

  test('an expired code is refused', async () => {
    const ada = await createMember(short);
    const email = address('expiry');
    await request(short, ada, email);
    const code = await codeFor(email);
    assert.match(smtp.to(email)[0]!.email.text!, /It expires in 1 minute\./);
    shortClock.shift += 1500;
    assert.deepEqual(reasonOf(await short.request('POST', `${USER}/emails/verification-code/verify`, { key: ada.apiKey, body: { email, code } })), [400, 'invalid_email_verification_code']);
  });

  test('without an SMS provider phone requests are refused, and nothing is stored', async () => {
    const ada = await createMember(short);
    const refused = await short.request('POST', `${USER}/phones/verification-code/request`, { key: ada.apiKey, body: { phone: number() } });
    assert.deepEqual(reasonOf(refused), [400, 'text_provider_not_configured']);
    assert.match(refused.body.error.message, /SMS verification needs .*TWILIO_\* settings/);
    assert.deepEqual(await short.runtime.ctx.database.db.select().from(verificationCodes).where(eq(verificationCodes.userId, ada.user.id)), []);
    assert.equal((await short.request('POST', `${USER}/emails/verification-code/request`, { key: ada.apiKey, body: { email: address('mail-only') } })).status, 200, 'email still works');
  });
});

describe('team and organization team verified resources', () => {
  let smtp: SmtpReceiver;
  let twilio: FakeTwilio;
  let api: TestApp;
  before(async () => {
    smtp = await startSmtpReceiver();
    twilio = await startFakeTwilio();
    ({ api } = await appWith(smtp, twilio));
  });
  after(async () => {
    await api.close();
    await smtp.close();
    await twilio.close();
  });
  const mailedCode = async (email: string) => {
    await eventually(async () => smtp.to(email).length > 0, 10_000);
    return codeIn(smtp.to(email).at(-1)!.email.text!);
  };
  const textedCodes = async (to: string, count: number) => {
    await eventually(async () => twilio.messages.filter((message) => message.to === to).length >= count, 10_000);
    return twilio.messages.filter((message) => message.to === to).map((message) => codeIn(message.body));
  };
  const call = (who: Member, method: string, path: string, body?: unknown) => api.request(method, path, { key: who.apiKey, ...(body ? { body } : {}) });

  test('a team: its admins verify for it, each with their own code; members and outsiders are refused', async () => {
    const owner = await createMember(api);
    const admin = await createMember(api);
    const member = await createMember(api);
    const team = await createTeam(api, owner);
    await addTeamMember(api, owner.apiKey, team.id, admin, 'ADMIN');
    await addTeamMember(api, owner.apiKey, team.id, member, 'MEMBER');
    const base = `/v2/teams/${team.id}/verified-resources`;

    const email = address('team');
    assert.equal((await call(admin, 'POST', `${base}/emails/verification-code/request`, { email })).status, 200);
    const verified = await call(admin, 'POST', `${base}/emails/verification-code/verify`, { email, code: await mailedCode(email) });
    assert.equal(verified.status, 200, verified.text);
    const row = verified.body.data;
    assert.deepEqual(row, { id: row.id, email, teamId: team.id, userId: admin.user.id });
    assert.deepEqual((await call(owner, 'GET', `${base}/emails`)).body.data, [row]);
    assert.deepEqual((await call(owner, 'GET', `${base}/emails/${row.id}`)).body.data, row);
    assert.deepEqual((await call(admin, 'GET', `${USER}/emails`)).body.data, [], "the team's address is not the admin's own");
    assert.deepEqual(reasonOf(await call(admin, 'GET', `${USER}/emails/${row.id}`)), [404, 'verified_email_not_found']);
    assert.deepEqual(reasonOf(await call(owner, 'POST', `${base}/emails/verification-code/request`, { email })), [409, 'email_already_verified']);

    // Two admins ask for the same number: each gets a code; the second verify answers the row the first made.
    const phone = number();
    assert.equal((await call(owner, 'POST', `${base}/phones/verification-code/request`, { phone })).status, 200);
    await textedCodes(phone, 1);
    assert.equal((await call(admin, 'POST', `${base}/phones/verification-code/request`, { phone })).status, 200);
    const [ownerCode, adminCode] = await textedCodes(phone, 2);
    const byAdmin = await call(admin, 'POST', `${base}/phones/verification-code/verify`, { phone, code: adminCode });
    assert.deepEqual(byAdmin.body.data, { id: byAdmin.body.data.id, phoneNumber: phone, teamId: team.id, userId: admin.user.id });
    const byOwner = await call(owner, 'POST', `${base}/phones/verification-code/verify`, { phone, code: ownerCode });
    assert.equal(byOwner.status, 200, byOwner.text);
    assert.deepEqual(byOwner.body.data, byAdmin.body.data);
    assert.deepEqual((await call(owner, 'GET', `${base}/phones`)).body.data, [byAdmin.body.data]);

    // Another team of the same owner does not read this one's.
    const other = await createTeam(api, owner);
    assert.deepEqual(reasonOf(await call(owner, 'GET', `/v2/teams/${other.id}/verified-resources/phones/${byAdmin.body.data.id}`)), [404, 'verified_phone_not_found']);
    const outsider = await createMember(api);
    for (const who of [member, outsider]) {
      assert.equal((await call(who, 'GET', `${base}/emails`)).status, 403);
      assert.equal((await call(who, 'GET', `${base}/phones/${byAdmin.body.data.id}`)).status, 403);
      assert.equal((await call(who, 'POST', `${base}/emails/verification-code/request`, { email: address('refused') })).status, 403);
      assert.equal((await call(who, 'POST', `${base}/emails/verification-code/verify`, { email, code: '123456' })).status, 403);
    }
  });

  test("an organization team: the organization's admins and the team's; a member, another organization's admin and a wrong path are refused", async () => {
    const { organization, owner } = await createOrganization(api);
    const created = await call(owner, 'POST', `/v2/organizations/${organization.id}/teams`, { name: `Desk ${tag}` });
    assert.equal(created.status, 201, created.text);
    const team = created.body.data;
    const orgAdmin = await createOrgMember(api, organization.id, owner.apiKey, 'ADMIN');
    const member = await createOrgMember(api, organization.id, owner.apiKey, 'MEMBER');
    const joined = await call(owner, 'POST', `/v2/organizations/${organization.id}/teams/${team.id}/memberships`, { userId: member.user.id, role: 'MEMBER', accepted: true });
    assert.equal(joined.status, 201, joined.text);
    const base = `/v2/organizations/${organization.id}/teams/${team.id}/verified-resources`;

    const email = address('org-team');
    assert.equal((await call(orgAdmin, 'POST', `${base}/emails/verification-code/request`, { email })).status, 200);
    const verified = await call(orgAdmin, 'POST', `${base}/emails/verification-code/verify`, { email, code: await mailedCode(email) });
    assert.equal(verified.status, 200, verified.text);
    const row = verified.body.data;
    assert.deepEqual(row, { id: row.id, email, teamId: team.id, userId: orgAdmin.user.id });
    assert.deepEqual((await call(owner, 'GET', `${base}/emails`)).body.data, [row]);
    assert.deepEqual((await call(orgAdmin, 'GET', `${base}/emails/${row.id}`)).body.data, row);
    // The same team through its standalone path: the organization's admin is not a member of it there.
    assert.equal((await call(orgAdmin, 'GET', `/v2/teams/${team.id}/verified-resources/emails`)).status, 403);

    assert.equal((await call(member, 'GET', `${base}/emails`)).status, 403, 'a team member who is not an admin');
    assert.equal((await call(member, 'POST', `${base}/emails/verification-code/request`, { email: address('member') })).status, 403);
    const otherOrg = await createOrganization(api);
    assert.equal((await call(otherOrg.owner, 'GET', `${base}/emails`)).status, 403, "another organization's owner");
    const crossed = await call(otherOrg.owner, 'GET', `/v2/organizations/${otherOrg.organization.id}/teams/${team.id}/verified-resources/emails/${row.id}`);
    assert.deepEqual(reasonOf(crossed), [404, 'team_not_found'], 'this team under their own organization');
  });
});
