// Stripe as svc uses it, through the official `stripe` package: Connect OAuth for Standard accounts
// (docs.stripe.com/connect/oauth-reference), Checkout Sessions and refunds created on the connected
// account (direct charges: the platform's key with Stripe-Account), and the signed events of a Connect
// webhook endpoint (docs.stripe.com/webhooks#verify-events). The package's errors become
// StripeProviderError, whose kind and `permanent` tell the caller whether trying again can help.
import type Stripe from 'stripe';
import { retryAfterMs } from '../provider-errors.js';

export interface StripeConfig {
  /** The platform's secret (sk_live_/sk_test_) or restricted (rk_) key. */
  secretKey: string;
  publishableKey: string | null;
  /** The Connect OAuth client id (ca_...). */
  clientId: string;
  /** The Connect webhook endpoint's signing secret (whsec_...). */
  webhookSecret: string;
  /** https://api.stripe.com, or a local Stripe in tests (which then also answers /oauth/*). */
  apiUrl: string;
  /** https://connect.stripe.com: only the browser is sent there, to the authorize page. */
  connectUrl: string;
  timeoutMs: number;
}

export type StripeFailureKind = 'auth' | 'invalid_request' | 'not_found' | 'rate_limited' | 'unavailable' | 'idempotency' | 'permission';

export class StripeProviderError extends Error {
  constructor(
    readonly kind: StripeFailureKind,
    message: string,
    /** The HTTP status, 0 when there was no answer. */
    readonly status: number,
    /** Stripe's error code (docs.stripe.com/error-codes) or OAuth error (invalid_grant...), null when none. */
    readonly code: string | null,
    readonly param: string | null,
    /** The same request cannot succeed by being sent again. */
    readonly permanent: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'StripeProviderError';
  }
}

/** A webhook whose signature is missing, wrong, or too old, or whose body is not a Stripe event. */
export class StripeSignatureError extends Error {
  override name = 'StripeSignatureError';
}

export interface ConnectedAccount { id: string; chargesEnabled: boolean; payoutsEnabled: boolean; defaultCurrency: string | null; email: string | null; country: string | null }
export interface ConnectTokens { accountId: string; accessToken: string | null; refreshToken: string | null; publishableKey: string | null; scope: string | null; livemode: boolean }
export interface CheckoutSessionInput {
  accountId: string;
  /** Minor units of `currency` (lowercase ISO 4217). */
  amount: number;
  currency: string;
  productName: string;
  description?: string;
  customerEmail?: string;
  successUrl: string;
  cancelUrl: string;
  /** 30 minutes to 24 hours from now, as Stripe requires. */
  expiresAt: Date;
  clientReferenceId: string;
  metadata: Record<string, string>;
  idempotencyKey: string;
}
export interface CheckoutSession {
  id: string; url: string | null; status: 'open' | 'complete' | 'expired'; paymentStatus: 'paid' | 'unpaid' | 'no_payment_required'; paymentIntentId: string | null;
  expiresAt: Date; amountTotal: number | null; currency: string | null; clientReferenceId: string | null; metadata: Record<string, string>;
}
export interface RefundInput { accountId: string; paymentIntentId: string; amount?: number; idempotencyKey: string; metadata?: Record<string, string> }
export interface Refund { id: string; status: string; amount: number; currency: string }
export interface StripeEvent { id: string; type: string; account: string | null; created: number; livemode: boolean; object: Record<string, unknown> }

const DEFAULT_API_URL = 'https://api.stripe.com';
const DEFAULT_CONNECT_URL = 'https://connect.stripe.com';
const clients = new WeakMap<StripeConfig, Stripe>();

type StripePackage = typeof Stripe;
// The package costs ~125 ms and ~35 MB to load: a svc that takes no payments never loads it.
let stripePackage: Promise<StripePackage> | null = null;
const loadStripe = (): Promise<StripePackage> => (stripePackage ??= import('stripe').then((module) => module.default));

function stripeFor(config: StripeConfig, StripeClass: StripePackage): Stripe {
  let client = clients.get(config);
  if (!client) {
    const url = new URL(config.apiUrl);
    // Left at the package's defaults, /oauth/* goes to connect.stripe.com; a host set here takes every
    // call, OAuth included, which is what a local Stripe needs.
    const local = url.origin === DEFAULT_API_URL ? {} : {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || (url.protocol === 'https:' ? '443' : '80'),
      protocol: url.protocol === 'https:' ? ('https' as const) : ('http' as const),
    };
    client = new StripeClass(config.secretKey, { ...local, timeout: config.timeoutMs, maxNetworkRetries: 1 });
    clients.set(config, client);
  }
  return client;
}

function redact(text: string, config: StripeConfig): string {
  return [config.secretKey, config.webhookSecret].reduce((safe, secret) => (secret.length >= 8 ? safe.split(secret).join('[redacted]') : safe), text);
}

function toProviderError(error: unknown, what: string, config: StripeConfig, errors: StripePackage['errors']): unknown {
  if (!(error instanceof errors.StripeError)) return error;
  const status = error.statusCode ?? 0;
  const oauth = error instanceof errors.StripeOAuthError;
  const code = (oauth ? error.rawType : error.code) ?? null;
  const line = `${what}: ${status === 0 ? 'Stripe could not be reached' : `Stripe answered HTTP ${status}`}${code ? ` (${code})` : ''}: ${error.message}`;
  const fail = (kind: StripeFailureKind, permanent: boolean, retryAfter?: number) =>
    new StripeProviderError(kind, redact(line, config), status, code, error.param ?? null, permanent, retryAfter);
  if (error instanceof errors.StripeConnectionError) return fail('unavailable', false);
  if (oauth) return fail(code === 'invalid_client' ? 'auth' : 'invalid_request', true);
  if (error instanceof errors.StripeAuthenticationError) return fail('auth', true);
  if (error instanceof errors.StripePermissionError) return fail('permission', true);
  if (error instanceof errors.StripeRateLimitError) {
    const headers = new Headers(Object.entries(error.headers ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
    return fail('rate_limited', false, retryAfterMs(headers, Date.now()));
  }
  // 409 is another request with the same key still running; any other idempotency error is a key reused
  // with different parameters, which no retry fixes.
  if (error instanceof errors.StripeIdempotencyError || error.rawType === 'idempotency_error') return fail('idempotency', status !== 409);
  if (status === 404) return fail('not_found', true);
  if (error instanceof errors.StripeAPIError || status >= 500) return fail('unavailable', false);
  return fail('invalid_request', true);
}

async function call<T>(config: StripeConfig, what: string, run: (stripe: Stripe) => Promise<T>): Promise<T> {
  const StripeClass = await loadStripe();
  try {
    return await run(stripeFor(config, StripeClass));
  } catch (error) {
    throw toProviderError(error, what, config, StripeClass.errors);
  }
}

/** Stripe's authorize page for a host: it signs in (or signs up) and is sent back to `redirectUri`. */
export function stripeAuthorizeUrl(config: StripeConfig, input: { state: string; redirectUri: string; email?: string | null; name?: string | null }): string {
  const query = new URLSearchParams({ response_type: 'code', client_id: config.clientId, scope: 'read_write', redirect_uri: input.redirectUri, state: input.state });
  if (input.email) query.set('stripe_user[email]', input.email);
  if (input.name) query.set('stripe_user[first_name]', input.name);
  return `${config.connectUrl.replace(/\/+$/, '')}/oauth/authorize?${query}`;
}

export async function exchangeStripeCode(config: StripeConfig, code: string): Promise<ConnectTokens> {
  const token = await call(config, 'exchanging a Stripe authorization code', (stripe) => stripe.oauth.token({ grant_type: 'authorization_code', code }));
  if (!token.stripe_user_id) throw new StripeProviderError('invalid_request', 'exchanging a Stripe authorization code: Stripe answered without stripe_user_id', 200, null, null, true);
  return {
    accountId: token.stripe_user_id,
    accessToken: token.access_token ?? null,
    refreshToken: token.refresh_token ?? null,
    publishableKey: token.stripe_publishable_key ?? null,
    scope: token.scope ?? null,
    livemode: token.livemode ?? false,
  };
}

export async function retrieveStripeAccount(config: StripeConfig, accountId: string): Promise<ConnectedAccount> {
  const account = await call(config, `reading Stripe account ${accountId}`, (stripe) => stripe.accounts.retrieve(accountId));
  return {
    id: account.id,
    chargesEnabled: account.charges_enabled,
    payoutsEnabled: account.payouts_enabled,
    defaultCurrency: account.default_currency ?? null,
    email: account.email ?? null,
    country: account.country ?? null,
  };
}

const SESSION_STATUSES = ['open', 'complete', 'expired'] as const;
const PAYMENT_STATUSES = ['paid', 'unpaid', 'no_payment_required'] as const;
// The package's types leave room for values Stripe may add later; one svc does not know is taken as
// not (yet) paid and not final.
const known = <T extends string>(values: readonly T[], value: string | null, fallback: T): T => (values as readonly string[]).includes(value ?? '') ? (value as T) : fallback;

function checkoutSession(session: Stripe.Checkout.Session): CheckoutSession {
  const intent = session.payment_intent;
  return {
    id: session.id,
    url: session.url,
    status: known(SESSION_STATUSES, session.status, 'open'),
    paymentStatus: known(PAYMENT_STATUSES, session.payment_status, 'unpaid'),
    paymentIntentId: typeof intent === 'string' ? intent : (intent?.id ?? null),
    expiresAt: new Date(session.expires_at * 1000),
    amountTotal: session.amount_total,
    currency: session.currency,
    clientReferenceId: session.client_reference_id,
    metadata: { ...(session.metadata ?? {}) },
  };
}

/** A hosted Checkout page on the host's account; the same idempotency key answers the same session. */
export async function createCheckoutSession(config: StripeConfig, input: CheckoutSessionInput): Promise<CheckoutSession> {
  const session = await call(config, `creating a Checkout Session on ${input.accountId}`, (stripe) =>
    stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [{
          quantity: 1,
          price_data: {
            currency: input.currency,
            unit_amount: input.amount,
            product_data: { name: input.productName, ...(input.description ? { description: input.description } : {}) },
          },
        }],
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        expires_at: Math.floor(input.expiresAt.getTime() / 1000),
        client_reference_id: input.clientReferenceId,
        ...(input.customerEmail ? { customer_email: input.customerEmail } : {}),
        metadata: input.metadata,
        // The PaymentIntent (what refunds and disputes point at) carries the same keys.
        payment_intent_data: { metadata: input.metadata },
      },
      { stripeAccount: input.accountId, idempotencyKey: input.idempotencyKey },
    ));
  return checkoutSession(session);
}

export async function retrieveCheckoutSession(config: StripeConfig, accountId: string, sessionId: string): Promise<CheckoutSession> {
  return checkoutSession(await call(config, `reading Checkout Session ${sessionId} on ${accountId}`, (stripe) => stripe.checkout.sessions.retrieve(sessionId, {}, { stripeAccount: accountId })));
}

/** 'not_open' when the session was already completed or expired (Stripe answers 400 for those). */
export async function expireCheckoutSession(config: StripeConfig, accountId: string, sessionId: string): Promise<'expired' | 'not_open'> {
  try {
    await call(config, `expiring Checkout Session ${sessionId} on ${accountId}`, (stripe) => stripe.checkout.sessions.expire(sessionId, {}, { stripeAccount: accountId }));
    return 'expired';
  } catch (error) {
    if (error instanceof StripeProviderError && error.kind === 'invalid_request' && error.status === 400) return 'not_open';
    throw error;
  }
}

export async function createRefund(config: StripeConfig, input: RefundInput): Promise<Refund> {
  const refund = await call(config, `refunding ${input.paymentIntentId} on ${input.accountId}`, (stripe) =>
    stripe.refunds.create(
      { payment_intent: input.paymentIntentId, ...(input.amount === undefined ? {} : { amount: input.amount }), ...(input.metadata ? { metadata: input.metadata } : {}) },
      { stripeAccount: input.accountId, idempotencyKey: input.idempotencyKey },
    ));
  return { id: refund.id, status: refund.status ?? 'pending', amount: refund.amount, currency: refund.currency };
}

/**
 * The event Stripe posted, once its Stripe-Signature header is verified over the raw body as received
 * (re-serialized JSON would not match). Events from connected accounts carry `account`.
 */
export async function verifyStripeWebhook(config: StripeConfig, rawBody: string | Buffer, signatureHeader: string | undefined, toleranceSeconds = 300): Promise<StripeEvent> {
  const StripeClass = await loadStripe();
  let event: Stripe.Event;
  try {
    event = StripeClass.webhooks.constructEvent(rawBody, signatureHeader ?? '', config.webhookSecret, toleranceSeconds);
  } catch (error) {
    throw new StripeSignatureError(redact(`Stripe webhook refused: ${error instanceof Error ? error.message : String(error)}`, config));
  }
  const object: unknown = event?.data?.object;
  if (typeof event?.id !== 'string' || typeof event.type !== 'string' || object === null || typeof object !== 'object') {
    throw new StripeSignatureError('Stripe webhook refused: the signed body is not a Stripe event');
  }
  return { id: event.id, type: event.type, account: event.account ?? null, created: event.created, livemode: event.livemode, object: object as Record<string, unknown> };
}

const setting = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value ? value : undefined;
};

function keySetting(env: NodeJS.ProcessEnv, name: string, prefix: RegExp, shape: string): string | undefined {
  const value = setting(env, name);
  // The value is a secret: the message names the variable and the expected shape, never what was set.
  if (value !== undefined && !(prefix.test(value) && /^\S+$/.test(value))) throw new Error(`${name} must be ${shape}`);
  return value;
}

function urlSetting(env: NodeJS.ProcessEnv, name: string, fallback: string, originOnly: boolean): string {
  const value = setting(env, name) ?? fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${name} must be an http(s) URL`);
  // The package always calls /v1/... on the host it is given: a path here would be silently dropped.
  if (originOnly && (url.pathname !== '/' || url.search || url.hash)) throw new Error(`${name} must be an origin without a path, e.g. https://api.stripe.com`);
  return value.replace(/\/+$/, '');
}

/**
 * Stripe as configured in the environment, or null when none of STRIPE_SECRET_KEY, STRIPE_CLIENT_ID
 * and STRIPE_WEBHOOK_SECRET is set. Some but not all of them, or a malformed value, is an error naming
 * the variable.
 */
export function stripeConfigFromEnv(env: NodeJS.ProcessEnv): StripeConfig | null {
  const secretKey = keySetting(env, 'STRIPE_SECRET_KEY', /^(sk|rk)_/, 'a Stripe secret key (sk_live_..., sk_test_...) or restricted key (rk_...)');
  const clientId = keySetting(env, 'STRIPE_CLIENT_ID', /^ca_/, 'a Connect client id (ca_...)');
  const webhookSecret = keySetting(env, 'STRIPE_WEBHOOK_SECRET', /^whsec_/, "a webhook endpoint's signing secret (whsec_...)");
  const publishableKey = keySetting(env, 'STRIPE_PUBLISHABLE_KEY', /^pk_/, 'a publishable key (pk_live_..., pk_test_...)') ?? null;
  const apiUrl = urlSetting(env, 'STRIPE_API_URL', DEFAULT_API_URL, true);
  const connectUrl = urlSetting(env, 'STRIPE_CONNECT_URL', DEFAULT_CONNECT_URL, false);
  const timeout = setting(env, 'STRIPE_TIMEOUT_MS');
  if (timeout !== undefined && !/^[1-9]\d*$/.test(timeout)) throw new Error('STRIPE_TIMEOUT_MS must be a positive whole number of milliseconds');

  const required = { STRIPE_SECRET_KEY: secretKey, STRIPE_CLIENT_ID: clientId, STRIPE_WEBHOOK_SECRET: webhookSecret };
  const missing = Object.entries(required).filter(([, value]) => value === undefined).map(([name]) => name);
  if (missing.length === 3) return null;
  if (missing.length > 0) {
    throw new Error(`${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not set: Stripe needs STRIPE_SECRET_KEY, STRIPE_CLIENT_ID and STRIPE_WEBHOOK_SECRET together`);
  }
  return { secretKey: secretKey!, publishableKey, clientId: clientId!, webhookSecret: webhookSecret!, apiUrl, connectUrl, timeoutMs: timeout === undefined ? 10_000 : Number(timeout) };
}
