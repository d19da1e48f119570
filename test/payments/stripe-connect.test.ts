// Stripe Connect over HTTP on the store of the run, against the local Stripe: a user's and an organization
// team's consent flows (svc's sealed state, Stripe's redirect, the account stored with its tokens sealed,
// the browser sent on), refusals and forged states, the connection check, who may connect what, and the
// paid event types a connected account allows (price, currency, refund policy, what a price cannot go with).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { stripeAccounts } from '../../src/db/schema.js';
import { type FakeStripe, startFakeStripe } from '../support/fake-stripe.js';
import { acceptMembership, createOrganization, type Member } from '../support/tenancy.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';
import { connectStripe, createPaidEventType, EVENT_TYPES_VERSION, stripeEnv } from './helpers.js';

const RETURN_TO = 'https://app.example.com/settings/payments?connected=1';
const ON_ERROR = 'https://app.example.com/settings/payments?failed=1';
const returnQuery = `?returnTo=${encodeURIComponent(RETURN_TO)}&onErrorReturnTo=${encodeURIComponent(ON_ERROR)}`;

describe(`Stripe Connect (${backend})`, () => {
  let api: TestApp;
  let stripe: FakeStripe;
  let host: Member;
  const db = () => api.runtime.ctx.database.db;
  const accountOf = async (column: 'user' | 'team', id: number) =>
    (await db().select().from(stripeAccounts).where(eq(column === 'user' ? stripeAccounts.userId : stripeAccounts.teamId, id)))[0];

  before(async () => {
    stripe = await startFakeStripe();
    api = await createTestApp(stripeEnv(stripe));
    stripe.webhookUrl = `${api.baseUrl}/v2/stripe/webhook`;
    host = await api.createUser({ timeZone: 'Europe/Berlin' });
  });
  after(async () => {
    await api?.close();
    await stripe?.close();
  });

  test("a user's consent: Stripe's page with svc's sealed state, the account stored (tokens sealed), the browser sent to returnTo", async () => {
    const connected = await connectStripe(api, host.apiKey, '/v2/stripe/connect', returnQuery);
    const authUrl = new URL(connected.authUrl);
    assert.equal(`${authUrl.origin}${authUrl.pathname}`, `${stripe.url}/oauth/authorize`);
    assert.equal(authUrl.searchParams.get('client_id'), stripe.clientId);
    assert.equal(authUrl.searchParams.get('scope'), 'read_write');
    assert.equal(authUrl.searchParams.get('response_type'), 'code');
    assert.equal(authUrl.searchParams.get('redirect_uri'), `${api.config.appUrl}/v2/stripe/save`);
    assert.equal(authUrl.searchParams.get('stripe_user[email]'), host.user.email);
    // The state is sealed: it carries neither the caller's key nor anything readable.
    const state = authUrl.searchParams.get('state')!;
    assert.ok(!state.includes(host.apiKey) && !state.includes('returnTo') && !state.includes('app.example.com'), state);
    assert.deepEqual([connected.status, connected.location], [301, RETURN_TO]);

    const stored = (await accountOf('user', host.user.id))!;
    assert.ok(stripe.accounts.has(stored.accountId), stored.accountId);
    const token = stripe.requests.find((request) => request.path === '/oauth/token')!;
    assert.equal(token.body.grant_type, 'authorization_code');
    assert.ok(!stored.credentialsSealed.includes('sk_') && !stored.credentialsSealed.includes('rt_') && !stored.credentialsSealed.includes('pk_'), 'tokens sealed');
    const opened = JSON.parse(api.runtime.ctx.secrets.open(stored.credentialsSealed)) as { accessToken: string; publishableKey: string };
    assert.match(opened.publishableKey, /^pk_test_/);
    assert.deepEqual([stored.invalid, stored.connectedByUserId, stored.defaultCurrency], [false, host.user.id, 'usd']);

    const check = await api.request('GET', '/v2/stripe/check', { key: host.apiKey });
    assert.equal(check.status, 200, check.text);
    assert.deepEqual(check.body, { status: 'success' });

    // Connecting again replaces the account (a new consent).
    const again = await connectStripe(api, host.apiKey);
    assert.deepEqual([again.status, again.body], [200, JSON.stringify({ url: '' })], 'without returnTo: the bare body');
    const replaced = (await accountOf('user', host.user.id))!;
    assert.notEqual(replaced.accountId, stored.accountId);
    assert.equal((await db().select().from(stripeAccounts).where(eq(stripeAccounts.userId, host.user.id))).length, 1);
  });

  test('a refused consent goes to onErrorReturnTo and keeps the account; a forged or another purpose\'s state is refused', async () => {
    const before = (await accountOf('user', host.user.id))!;
    stripe.nextConsent({ deny: true });
    const denied = await connectStripe(api, host.apiKey, '/v2/stripe/connect', returnQuery);
    assert.deepEqual([denied.status, denied.location], [301, ON_ERROR]);
    assert.equal((await accountOf('user', host.user.id))!.accountId, before.accountId);

    stripe.nextConsent({ deny: true });
    const bare = await connectStripe(api, host.apiKey);
    assert.equal(bare.status, 400, bare.body);
    assert.equal(JSON.parse(bare.body).error.details.reason, 'stripe_connect_denied');

    const forged = await fetch(`${api.baseUrl}/v2/stripe/save?code=ac_123&state=${encodeURIComponent('{"owner":{"kind":"user","userId":1}}')}`, { redirect: 'manual' });
    assert.equal(forged.status, 400);
    assert.equal(((await forged.json()) as { error: { details: { reason: string } } }).error.details.reason, 'stripe_state_invalid');
    const missing = await api.request('GET', '/v2/stripe/save?code=ac_123');
    assert.deepEqual([missing.status, missing.body.error.details.reason], [400, 'stripe_state_invalid']);
    // Stripe's redirect replayed: its code is spent, so Stripe refuses it and the browser goes to onErrorReturnTo.
    const connect = await api.request('GET', `/v2/stripe/connect${returnQuery}`, { key: host.apiKey });
    const back = new URL((await fetch(connect.body.data.authUrl, { redirect: 'manual' })).headers.get('location')!);
    const save = () => fetch(`${api.baseUrl}/v2/stripe/save${back.search}`, { redirect: 'manual' });
    assert.deepEqual(await save().then((answer) => [answer.status, answer.headers.get('location')]), [301, RETURN_TO]);
    const stored = (await accountOf('user', host.user.id))!.accountId;
    assert.deepEqual(await save().then((answer) => [answer.status, answer.headers.get('location')]), [301, ON_ERROR]);
    assert.equal((await accountOf('user', host.user.id))!.accountId, stored);
  });

  test('check: 404 without an account, 400 when Stripe says it cannot take payments or it was disconnected', async () => {
    const newcomer = await api.createUser();
    const none = await api.request('GET', '/v2/stripe/check', { key: newcomer.apiKey });
    assert.deepEqual([none.status, none.body.error.details.reason, none.body.error.message], [404, 'stripe_not_connected', 'Credentials for stripe not found.']);

    stripe.nextConsent({ chargesEnabled: false });
    assert.equal((await connectStripe(api, newcomer.apiKey)).status, 200);
    const inactive = await api.request('GET', '/v2/stripe/check', { key: newcomer.apiKey });
    assert.deepEqual([inactive.status, inactive.body.error.message], [400, 'Stripe account is not an active account']);

    // The account takes svc's access back: Stripe's event marks it, and check says so.
    const accountId = (await accountOf('user', newcomer.user.id))!.accountId;
    stripe.accounts.get(accountId)!.deauthorized = true;
    const told = await stripe.deliver(stripe.event('account.application.deauthorized', { id: 'ca_app', object: 'application' }, accountId));
    assert.equal(told.status, 200, told.body);
    assert.equal(JSON.parse(told.body).outcome, 'deauthorized');
    const revoked = await api.request('GET', '/v2/stripe/check', { key: newcomer.apiKey });
    assert.deepEqual([revoked.status, revoked.body.error.message], [400, 'Invalid stripe credentials.']);
    assert.equal((await accountOf('user', newcomer.user.id))!.invalid, true);
  });

  test("an organization team's account: its admins connect it (Stripe comes back to the user-level save), members and other organizations are refused", async () => {
    const { organization, owner } = await createOrganization(api);
    const team = await api.request('POST', `/v2/organizations/${organization.id}/teams`, { key: owner.apiKey, body: { name: 'Clinic' } });
    assert.equal(team.status, 201, team.text);
    const teamId: number = team.body.data.id;
    const base = `/v2/organizations/${organization.id}/teams/${teamId}/stripe`;

    const connected = await connectStripe(api, owner.apiKey, `${base}/connect`, returnQuery);
    assert.deepEqual([connected.status, connected.location], [301, RETURN_TO]);
    assert.equal(new URL(connected.authUrl).searchParams.get('redirect_uri'), `${api.config.appUrl}/v2/stripe/save`);
    const stored = (await accountOf('team', teamId))!;
    assert.equal(stored.connectedByUserId, owner.user.id);
    assert.equal(await accountOf('user', owner.user.id), undefined, "the team's, not its admin's");
    const check = await api.request('GET', `${base}/check`, { key: owner.apiKey });
    assert.deepEqual([check.status, check.body], [200, { status: 'success' }]);

    // The team's own save route takes only that team's states.
    const userState = new URL((await api.request('GET', '/v2/stripe/connect', { key: owner.apiKey })).body.data.authUrl).searchParams.get('state')!;
    const wrong = await api.request('GET', `${base}/save?code=ac_1&state=${encodeURIComponent(userState)}`);
    assert.deepEqual([wrong.status, wrong.body.error.details.reason], [400, 'stripe_state_invalid']);
    const viaTeamRoute = await connectStripe(api, owner.apiKey, `${base}/connect`, '', `${base}/save`);
    assert.equal(viaTeamRoute.status, 200, viaTeamRoute.body);

    // A plain member of the organization, and another organization's owner, may not.
    const member = await api.createUser();
    const joined = await api.request('POST', `/v2/organizations/${organization.id}/memberships`, { key: owner.apiKey, body: { userId: member.user.id, role: 'MEMBER', accepted: true } });
    assert.equal(joined.status, 201, joined.text);
    if (!joined.body.data.accepted) await acceptMembership(api, member, `/v2/organizations/${organization.id}/memberships/${joined.body.data.id}`);
    const other = await createOrganization(api);
    for (const caller of [member, other.owner]) {
      for (const path of [`${base}/connect`, `${base}/check`]) {
        const refused = await api.request('GET', path, { key: caller.apiKey });
        assert.equal(refused.status, 403, `${path}: ${refused.text}`);
      }
    }
    // A user's own routes answer for their own account only.
    const mine = await api.request('GET', '/v2/stripe/check', { key: member.apiKey });
    assert.equal(mine.status, 404);

    // An admin who loses the role before Stripe comes back stores nothing.
    const admin = await api.createUser();
    const added = await api.request('POST', `/v2/organizations/${organization.id}/memberships`, { key: owner.apiKey, body: { userId: admin.user.id, role: 'ADMIN', accepted: true } });
    if (!added.body.data.accepted) await acceptMembership(api, admin, `/v2/organizations/${organization.id}/memberships/${added.body.data.id}`);
    const begun = await api.request('GET', `${base}/connect`, { key: admin.apiKey });
    assert.equal(begun.status, 200, begun.text);
    const demoted = await api.request('PATCH', `/v2/organizations/${organization.id}/memberships/${added.body.data.id}`, { key: owner.apiKey, body: { role: 'MEMBER' } });
    assert.equal(demoted.status, 200, demoted.text);
    const consent = await fetch(begun.body.data.authUrl, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    const beforeId = (await accountOf('team', teamId))!.accountId;
    const late = await fetch(`${api.baseUrl}${back.pathname}${back.search}`, { redirect: 'manual' });
    assert.equal(late.status, 400);
    assert.equal((await accountOf('team', teamId))!.accountId, beforeId);
  });

  test('paid event types: a price needs a connected account, an amount Stripe can charge in a currency it takes, and no seats or series', async () => {
    const create = (key: string, body: Record<string, unknown>) =>
      api.request('POST', '/v2/event-types', { key, version: EVENT_TYPES_VERSION, body: { title: 'Paid', slug: `p-${Math.random().toString(36).slice(2, 8)}`, lengthInMinutes: 30, ...body } });
    const stranger = await api.createUser();
    const unconnected = await create(stranger.apiKey, { price: 5000, currency: 'eur' });
    assert.equal(unconnected.status, 400, unconnected.text);
    assert.deepEqual([unconnected.body.error.details.reason, unconnected.body.error.details.errors[0].property], ['stripe_not_connected', 'price']);

    const refusals: [Record<string, unknown>, string, string][] = [
      [{ price: 10, currency: 'usd' }, 'price', 'at least 0.50 USD'],
      [{ price: 5000, currency: 'xyz' }, 'currency', 'xyz'],
      [{ price: 12345, currency: 'kwd' }, 'price', 'kwd'],
      [{ price: 1.5, currency: 'usd' }, 'price', ''],
      [{ price: 100_000_000, currency: 'usd' }, 'price', ''],
      [{ price: 5000, currency: 'usd', seats: { seatsPerTimeSlot: 4, showAttendeeInfo: false, showAvailabilityCount: true } }, 'price', 'seats'],
      [{ price: 5000, currency: 'usd', recurrence: { interval: 1, occurrences: 4, frequency: 'weekly' } }, 'price', 'recurring'],
      [{ price: 5000, refundPolicy: { type: 'days' } }, 'refundPolicy.days', 'required'],
    ];
    for (const [body, field, text] of refusals) {
      const refused = await create(host.apiKey, body);
      assert.equal(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`);
      const named = refused.body.error.details.errors?.[0]?.property ?? refused.body.error.details.property;
      assert.equal(named, field, `${JSON.stringify(body)}: ${refused.text}`);
      assert.ok(refused.body.error.message.includes(text), refused.body.error.message);
    }

    const paid = await createPaidEventType(api, host.apiKey, { price: 2500, currency: 'EUR', refundPolicy: { type: 'days', days: 2, calendarDays: false } });
    assert.deepEqual([paid.price, paid.currency], [2500, 'eur']);
    const read = await api.request('GET', `/v2/event-types/${paid.id}`, { key: host.apiKey, version: EVENT_TYPES_VERSION });
    assert.deepEqual(read.body.data.refundPolicy, { type: 'days', days: 2, calendarDays: false });
    // A free event type shows the reference's price fields and no refund policy.
    const free = await create(host.apiKey, {});
    assert.deepEqual([free.body.data.price, free.body.data.currency, 'refundPolicy' in free.body.data], [0, 'usd', false]);
    // Seats added to a paid type later are refused as well, naming what was sent.
    const seated = await api.request('PATCH', `/v2/event-types/${paid.id}`, { key: host.apiKey, version: EVENT_TYPES_VERSION, body: { seats: { seatsPerTimeSlot: 3, showAttendeeInfo: false, showAvailabilityCount: true } } });
    assert.deepEqual([seated.status, seated.body.error.details.errors[0].property], [400, 'seats']);
    const freed = await api.request('PATCH', `/v2/event-types/${paid.id}`, { key: host.apiKey, version: EVENT_TYPES_VERSION, body: { price: 0 } });
    assert.equal(freed.status, 200, freed.text);
  });
});
