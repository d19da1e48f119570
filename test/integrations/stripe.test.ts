// Stripe's adapter (the official stripe package) against a local Stripe (test/support/fake-stripe.ts):
// configuration from the environment; Connect OAuth (authorize URL, the code traded once, a refusal,
// disconnecting); Checkout Sessions on the connected account (the form Stripe receives, Stripe-Account,
// idempotency, Stripe's limits), expiring them, refunds; Stripe's failures typed with the secret key kept
// out of messages; webhook signatures checked against the fake's independent signing and the package's.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { ConfigError } from '../../src/app/config-error.js';
import { stripeConfig } from '../../src/app/stripe-config.js';
import {
  type CheckoutSessionInput, createCheckoutSession, createRefund, exchangeStripeCode, expireCheckoutSession, retrieveCheckoutSession,
  retrieveStripeAccount, type StripeConfig, stripeAuthorizeUrl, stripeConfigFromEnv, type StripeEvent, StripeProviderError, StripeSignatureError, verifyStripeWebhook,
} from '../../src/integrations/stripe/client.js';
import { type FakeStripe, startFakeStripe } from '../support/fake-stripe.js';

const SECRET_KEY = 'sk_test_51Fake0000000000000000000000svc';

const isStripeError = (kind: StripeProviderError['kind'], check: (error: StripeProviderError) => boolean = () => true) => (error: unknown) => {
  assert.ok(error instanceof StripeProviderError, `expected a StripeProviderError, got ${String(error)}`);
  assert.equal(error.kind, kind, error.message);
  assert.ok(!error.message.includes(SECRET_KEY), `the key leaked: ${error.message}`);
  return check(error);
};

describe('Stripe configuration from the environment', () => {
  const complete = { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_CLIENT_ID: 'ca_123', STRIPE_WEBHOOK_SECRET: 'whsec_abc' };

  test('null when none of the three is set; defaults; every setting read', () => {
    assert.equal(stripeConfigFromEnv({ STRIPE_PUBLISHABLE_KEY: 'pk_test_1', STRIPE_SECRET_KEY: ' ' }), null);
    assert.deepEqual(stripeConfigFromEnv(complete), {
      secretKey: SECRET_KEY, publishableKey: null, clientId: 'ca_123', webhookSecret: 'whsec_abc', apiUrl: 'https://api.stripe.com', connectUrl: 'https://connect.stripe.com', timeoutMs: 10_000,
    });
    const full = { ...complete, STRIPE_SECRET_KEY: 'rk_live_x', STRIPE_PUBLISHABLE_KEY: 'pk_live_y', STRIPE_API_URL: 'http://127.0.0.1:9/', STRIPE_CONNECT_URL: 'http://127.0.0.1:9', STRIPE_TIMEOUT_MS: '2500' };
    assert.deepEqual(stripeConfigFromEnv(full), {
      secretKey: 'rk_live_x', publishableKey: 'pk_live_y', clientId: 'ca_123', webhookSecret: 'whsec_abc', apiUrl: 'http://127.0.0.1:9', connectUrl: 'http://127.0.0.1:9', timeoutMs: 2500,
    });
  });

  test('some but not all of the three names what is missing; svc reads it as a ConfigError', () => {
    assert.throws(() => stripeConfigFromEnv({ ...complete, STRIPE_CLIENT_ID: undefined }), /^Error: STRIPE_CLIENT_ID is not set/);
    assert.throws(() => stripeConfigFromEnv({ STRIPE_WEBHOOK_SECRET: 'whsec_abc' }), /STRIPE_SECRET_KEY and STRIPE_CLIENT_ID are not set/);
    assert.throws(() => stripeConfig({ STRIPE_SECRET_KEY: SECRET_KEY }), (error: unknown) => error instanceof ConfigError && !error.message.includes(SECRET_KEY));
    assert.equal(stripeConfig({}), null);
  });

  test('a malformed value names its variable and never echoes a secret', () => {
    const cases: [Record<string, string>, string][] = [
      [{ ...complete, STRIPE_SECRET_KEY: 'pk_test_oops' }, 'STRIPE_SECRET_KEY'],
      [{ ...complete, STRIPE_CLIENT_ID: 'acct_123' }, 'STRIPE_CLIENT_ID'],
      [{ ...complete, STRIPE_WEBHOOK_SECRET: 'secret' }, 'STRIPE_WEBHOOK_SECRET'],
      [{ ...complete, STRIPE_PUBLISHABLE_KEY: SECRET_KEY }, 'STRIPE_PUBLISHABLE_KEY'],
      [{ ...complete, STRIPE_API_URL: 'ftp://api.stripe.com' }, 'STRIPE_API_URL'],
      [{ ...complete, STRIPE_API_URL: 'https://proxy.example/stripe' }, 'STRIPE_API_URL'],
      [{ ...complete, STRIPE_CONNECT_URL: 'not a url' }, 'STRIPE_CONNECT_URL'],
      [{ ...complete, STRIPE_TIMEOUT_MS: '10s' }, 'STRIPE_TIMEOUT_MS'],
    ];
    for (const [env, variable] of cases) {
      assert.throws(() => stripeConfigFromEnv(env), (error: unknown) => error instanceof Error && error.message.startsWith(variable) && !error.message.includes(SECRET_KEY), variable);
    }
  });
});

describe('Stripe adapter', () => {
  let stripe: FakeStripe;
  let config: StripeConfig;
  let accountId: string;
  let receiver: http.Server;
  const received: { event?: StripeEvent; error?: unknown }[] = [];
  const checkout = (overrides: Partial<CheckoutSessionInput> = {}): CheckoutSessionInput => ({
    accountId, amount: 2500, currency: 'eur', productName: '30 min consultation', description: 'Tue 10:30 with Ada', customerEmail: 'booker+1@example.com',
    successUrl: 'https://svc.example.test/booking/b1?paid=1', cancelUrl: 'https://svc.example.test/booking/b1', expiresAt: new Date(Date.now() + 2 * 3600_000),
    clientReferenceId: 'b1', metadata: { bookingUid: 'b1', tenant: 't1' }, idempotencyKey: `checkout-${Math.random()}`, ...overrides,
  });

  before(async () => {
    stripe = await startFakeStripe({ secretKey: SECRET_KEY });
    config = { secretKey: SECRET_KEY, publishableKey: null, clientId: stripe.clientId, webhookSecret: stripe.webhookSecret, apiUrl: stripe.url, connectUrl: stripe.url, timeoutMs: 2000 };
    accountId = stripe.addAccount({ defaultCurrency: 'eur', country: 'DE', email: 'ada@example.com' });
    // What svc's webhook route does: verify the raw body, answer 400 when it cannot.
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        verifyStripeWebhook(config, Buffer.concat(chunks), req.headers['stripe-signature'] as string | undefined).then(
          (event) => {
            received.push({ event });
            res.writeHead(200).end('ok');
          },
          (error: unknown) => {
            received.push({ error });
            res.writeHead(400).end(error instanceof Error ? error.message : 'refused');
          },
        );
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    stripe.webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v2/stripe/webhook`;
  });
  after(async () => {
    await stripe.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  test('the authorize URL carries every parameter, encoded, and leaves out what is not known', () => {
    const url = new URL(stripeAuthorizeUrl({ ...config, connectUrl: 'https://connect.stripe.com/' }, { state: 'a+b/c=&d', redirectUri: 'https://svc.example.test/v2/stripe/save?x=1', email: 'ada+x@example.com', name: 'Ada L' }));
    assert.equal(`${url.origin}${url.pathname}`, 'https://connect.stripe.com/oauth/authorize');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      response_type: 'code', client_id: stripe.clientId, scope: 'read_write', redirect_uri: 'https://svc.example.test/v2/stripe/save?x=1', state: 'a+b/c=&d', 'stripe_user[email]': 'ada+x@example.com', 'stripe_user[first_name]': 'Ada L',
    });
    const bare = new URL(stripeAuthorizeUrl(config, { state: 's', redirectUri: 'https://svc.example.test/cb', email: null }));
    assert.deepEqual([...bare.searchParams.keys()], ['response_type', 'client_id', 'scope', 'redirect_uri', 'state']);
  });

  test('OAuth: consent redirects with a code and the state; the code is traded once for the account', async () => {
    const authorize = await fetch(stripeAuthorizeUrl(config, { state: 'st 1', redirectUri: 'https://svc.example.test/v2/stripe/save', email: 'new@example.com' }), { redirect: 'manual' });
    assert.equal(authorize.status, 302);
    const back = new URL(authorize.headers.get('location')!);
    assert.equal(`${back.origin}${back.pathname}`, 'https://svc.example.test/v2/stripe/save');
    assert.deepEqual([back.searchParams.get('state'), back.searchParams.get('scope')], ['st 1', 'read_write']);
    const code = back.searchParams.get('code')!;
    const tokens = await exchangeStripeCode(config, code);
    assert.equal(stripe.accounts.get(tokens.accountId)?.email, 'new@example.com');
    assert.match(tokens.publishableKey ?? '', /^pk_test_/);
    assert.deepEqual([tokens.scope, tokens.livemode], ['read_write', false]);
    const request = stripe.requests.at(-1)!;
    assert.deepEqual([request.method, request.path, request.body.grant_type, request.body.code], ['POST', '/oauth/token', 'authorization_code', code]);
    await assert.rejects(exchangeStripeCode(config, code), isStripeError('invalid_request', (error) => error.code === 'invalid_grant' && error.status === 400 && error.permanent));
  });

  test('OAuth: a refusal comes back as access_denied; an unknown client id is not redirected at all', async () => {
    stripe.nextConsent({ deny: true });
    const denied = await fetch(stripeAuthorizeUrl(config, { state: 'st2', redirectUri: 'https://svc.example.test/cb' }), { redirect: 'manual' });
    const back = new URL(denied.headers.get('location')!);
    assert.deepEqual([back.searchParams.get('error'), back.searchParams.get('state'), back.searchParams.has('code')], ['access_denied', 'st2', false]);
    const unknown = await fetch(stripeAuthorizeUrl({ ...config, clientId: 'ca_other' }, { state: 's', redirectUri: 'https://svc.example.test/cb' }), { redirect: 'manual' });
    assert.deepEqual([unknown.status, unknown.headers.get('location')], [400, null]);
  });

  test('accounts: read with their flags; unknown is not_found; once disconnected (by its owner), refused', async () => {
    const limited = stripe.addAccount({ chargesEnabled: false, payoutsEnabled: false, defaultCurrency: 'gbp', country: 'GB' });
    assert.deepEqual(await retrieveStripeAccount(config, accountId), { id: accountId, chargesEnabled: true, payoutsEnabled: true, defaultCurrency: 'eur', email: 'ada@example.com', country: 'DE' });
    assert.deepEqual(await retrieveStripeAccount(config, limited), { id: limited, chargesEnabled: false, payoutsEnabled: false, defaultCurrency: 'gbp', email: null, country: 'GB' });
    await assert.rejects(retrieveStripeAccount(config, 'acct_1Nope'), isStripeError('not_found', (error) => error.code === 'resource_missing' && error.status === 404));
    stripe.accounts.get(limited)!.deauthorized = true;
    await assert.rejects(retrieveStripeAccount(config, limited), isStripeError('permission', (error) => error.status === 403 && error.permanent));
  });

  test('checkout: the form Stripe receives, on the connected account, once per idempotency key', async () => {
    const input = checkout({ idempotencyKey: 'booking-b1-attempt-1' });
    const session = await createCheckoutSession(config, input);
    const request = stripe.requests.at(-1)!;
    assert.deepEqual([request.path, request.stripeAccount, request.idempotencyKey], ['/v1/checkout/sessions', accountId, 'booking-b1-attempt-1']);
    assert.deepEqual(request.body, {
      mode: 'payment',
      line_items: [{ quantity: '1', price_data: { currency: 'eur', unit_amount: '2500', product_data: { name: '30 min consultation', description: 'Tue 10:30 with Ada' } } }],
      success_url: input.successUrl, cancel_url: input.cancelUrl, expires_at: String(Math.floor(input.expiresAt.getTime() / 1000)),
      client_reference_id: 'b1', customer_email: 'booker+1@example.com', metadata: { bookingUid: 'b1', tenant: 't1' }, payment_intent_data: { metadata: { bookingUid: 'b1', tenant: 't1' } },
    });
    assert.match(session.id, /^cs_test_/);
    assert.deepEqual({ ...session, id: '', url: '' }, {
      id: '', url: '', status: 'open', paymentStatus: 'unpaid', paymentIntentId: null, expiresAt: new Date(Math.floor(input.expiresAt.getTime() / 1000) * 1000),
      amountTotal: 2500, currency: 'eur', clientReferenceId: 'b1', metadata: { bookingUid: 'b1', tenant: 't1' },
    });
    assert.equal(session.url, `${stripe.url}/c/pay/${session.id}`);
    const count = stripe.sessions.size;
    assert.equal((await createCheckoutSession(config, input)).id, session.id);
    assert.equal(stripe.sessions.size, count);
    await assert.rejects(createCheckoutSession(config, { ...input, amount: 3000 }), isStripeError('idempotency', (error) => error.permanent && error.status === 400));
    assert.deepEqual(await retrieveCheckoutSession(config, accountId, session.id), { ...session });
  });

  test("checkout: Stripe's limits come back as invalid_request with the param; another account's session is not found", async () => {
    await assert.rejects(createCheckoutSession(config, checkout({ expiresAt: new Date(Date.now() + 20 * 60_000) })), isStripeError('invalid_request', (error) => error.param === 'expires_at' && error.permanent));
    await assert.rejects(createCheckoutSession(config, checkout({ amount: 49 })), isStripeError('invalid_request', (error) => error.code === 'amount_too_small'));
    const session = await createCheckoutSession(config, checkout());
    const other = stripe.addAccount();
    await assert.rejects(retrieveCheckoutSession(config, other, session.id), isStripeError('not_found', (error) => error.code === 'resource_missing'));
    await assert.rejects(createCheckoutSession(config, checkout({ accountId: 'acct_1NotConnected' })), isStripeError('permission'));
  });

  test("expiring: an open session expires; an expired or paid one is not_open; an unknown one is not_found", async () => {
    const session = await createCheckoutSession(config, checkout());
    assert.equal(await expireCheckoutSession(config, accountId, session.id), 'expired');
    assert.equal((await retrieveCheckoutSession(config, accountId, session.id)).status, 'expired');
    assert.equal(await expireCheckoutSession(config, accountId, session.id), 'not_open');
    const paid = await createCheckoutSession(config, checkout());
    await stripe.pay(paid.id);
    assert.equal(await expireCheckoutSession(config, accountId, paid.id), 'not_open');
    await assert.rejects(expireCheckoutSession(config, accountId, 'cs_test_missing'), isStripeError('not_found'));
  });

  test('refunds: of the paid session\'s PaymentIntent, on its account, replayed per key, and never twice in full', async () => {
    const session = await createCheckoutSession(config, checkout({ amount: 4000, currency: 'usd' }));
    await stripe.pay(session.id);
    const paid = await retrieveCheckoutSession(config, accountId, session.id);
    assert.deepEqual([paid.status, paid.paymentStatus], ['complete', 'paid']);
    const intent = paid.paymentIntentId!;
    assert.deepEqual(stripe.paymentIntents.get(intent)?.object.metadata, { bookingUid: 'b1', tenant: 't1' });
    const part = await createRefund(config, { accountId, paymentIntentId: intent, amount: 1000, idempotencyKey: 'refund-b1-1', metadata: { bookingUid: 'b1' } });
    assert.deepEqual({ ...part, id: '' }, { id: '', status: 'succeeded', amount: 1000, currency: 'usd' });
    assert.equal((await createRefund(config, { accountId, paymentIntentId: intent, amount: 1000, idempotencyKey: 'refund-b1-1', metadata: { bookingUid: 'b1' } })).id, part.id);
    const rest = await createRefund(config, { accountId, paymentIntentId: intent, idempotencyKey: 'refund-b1-2' });
    assert.equal(rest.amount, 3000);
    assert.deepEqual(stripe.refunds.slice(-2).map((refund) => [refund.account, refund.object.payment_intent, refund.object.amount]), [[accountId, intent, 1000], [accountId, intent, 3000]]);
    await assert.rejects(createRefund(config, { accountId, paymentIntentId: intent, idempotencyKey: 'refund-b1-3' }), isStripeError('invalid_request', (error) =>
      error.code === 'charge_already_refunded' && error.permanent && error.status === 400));
    await assert.rejects(createRefund(config, { accountId: stripe.addAccount(), paymentIntentId: intent, idempotencyKey: 'refund-b1-4' }), isStripeError('not_found'));
  });

  test('failures: rate limits and outages may pass later; a wrong key is an auth failure that names no key', async () => {
    stripe.failNext('/v1/accounts', { status: 429, type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests', retryAfter: 3 });
    await assert.rejects(retrieveStripeAccount(config, accountId), isStripeError('rate_limited', (error) => !error.permanent && error.retryAfterMs === 3000 && error.status === 429));
    stripe.failNext('/v1/accounts', { status: 500, type: 'api_error', message: 'Something went wrong', shouldRetry: false });
    await assert.rejects(retrieveStripeAccount(config, accountId), isStripeError('unavailable', (error) => !error.permanent && error.status === 500));
    const wrongKey = 'sk_test_51WrongKey000000000000000000000';
    await assert.rejects(retrieveStripeAccount({ ...config, secretKey: wrongKey }, accountId), (error: unknown) =>
      isStripeError('auth', (e) => e.permanent && e.status === 401 && !e.message.includes(wrongKey))(error));
  });

  test('a 500 is retried once with the same key, and Stripe replays the kept 500 to it', async () => {
    stripe.failNext('/v1/checkout/sessions', { status: 500, type: 'api_error', message: 'Something went wrong' });
    const from = stripe.requests.length;
    await assert.rejects(createCheckoutSession(config, checkout({ idempotencyKey: 'retried-500' })), isStripeError('unavailable', (error) => !error.permanent && error.status === 500));
    assert.deepEqual(stripe.requests.slice(from).map((request) => request.idempotencyKey), ['retried-500', 'retried-500']);
  });

  test('an unreachable Stripe is unavailable, with no status', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(retrieveStripeAccount({ ...config, apiUrl: `http://127.0.0.1:${port}` }, accountId), isStripeError('unavailable', (error) => error.status === 0 && !error.permanent));
  });

  test("webhooks: the fake's signed event verifies; another secret, a changed body, no header or an old timestamp do not", async () => {
    const session = await createCheckoutSession(config, checkout());
    const from = received.length;
    const delivery = await stripe.pay(session.id);
    assert.equal(delivery.status, 200);
    const event = received[from]!.event!;
    assert.deepEqual([event.id, event.type, event.account, event.livemode], [delivery.event.id, 'checkout.session.completed', accountId, false]);
    assert.deepEqual([event.object.id, event.object.payment_status, event.object.client_reference_id, event.object.metadata], [session.id, 'paid', 'b1', { bookingUid: 'b1', tenant: 't1' }]);
    assert.match(String(event.object.payment_intent), /^pi_/);

    const expired = await createCheckoutSession(config, checkout());
    const body = JSON.stringify(stripe.event('checkout.session.expired', { id: expired.id }, accountId), null, 2);
    const refused = [
      await stripe.deliver({}, { body, secret: 'whsec_someoneelse' }),
      await stripe.deliver({}, { body: body.replace(expired.id, session.id), signatureHeader: stripe.signatureFor(body, Math.floor(Date.now() / 1000)) }),
      await stripe.deliver({}, { body, signatureHeader: '' }),
      await stripe.deliver({}, { body, timestamp: Math.floor(Date.now() / 1000) - 600 }),
    ];
    assert.deepEqual(refused.map((answer) => answer.status), [400, 400, 400, 400]);
    assert.ok(received.slice(from + 1).every((entry) => entry.error instanceof StripeSignatureError));
    assert.equal((await stripe.deliver({}, { body })).status, 200);
    await assert.rejects(verifyStripeWebhook(config, body, undefined), StripeSignatureError);
  });

  test("the fake's signature is the stripe package's", () => {
    const payload = JSON.stringify({ id: 'evt_1', object: 'event', data: { object: { note: 'é ✓' } } });
    for (const secret of [stripe.webhookSecret, 'whsec_other']) {
      assert.equal(Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: 1_700_000_000 }), stripe.signatureFor(payload, 1_700_000_000, secret));
    }
  });
});
