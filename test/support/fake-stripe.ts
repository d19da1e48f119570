// A local Stripe for the payment tests: the subset svc uses, answering as Stripe documents it. One server
// on 127.0.0.1 (a free port) stands for both api.stripe.com and connect.stripe.com:
// - Connect OAuth (docs.stripe.com/connect/oauth-reference): GET /oauth/authorize consents at once (or
//   as nextConsent() says) and redirects with a single-use ac_ code; POST /oauth/token trades it;
//   POST /oauth/deauthorize disconnects. OAuth errors have OAuth's flat {error, error_description} shape;
//   an unknown client_id or a missing redirect_uri gets an error page, not a redirect (RFC 6749 4.1.2.1).
// - The API (docs.stripe.com/api): secret-key authentication (Bearer, or Basic with the key as user),
//   form bodies in bracket notation, errors as {error: {type, code, message, param}} with Stripe's
//   statuses, Stripe-Account for calls on a connected account (an account not connected is 403
//   account_invalid), and idempotency as docs.stripe.com/api/idempotent_requests says: per account and
//   key, the first result is replayed (Idempotent-Replayed: true) once the endpoint has run, 500s
//   included; validation errors are not kept; the same key with other parameters is an idempotency_error.
//   GET /v1/accounts/:id; POST /v1/checkout/sessions (mode=payment with price_data line items, on a
//   connected account only), GET /v1/checkout/sessions/:id, POST .../expire (docs.stripe.com/api/checkout/
//   sessions); POST /v1/refunds (docs.stripe.com/api/refunds/create).
// - Webhooks (docs.stripe.com/webhooks#verify-events): events posted to `webhookUrl` with
//   Stripe-Signature t=...,v1=HMAC-SHA256 hex of `${t}.${body}` keyed by the whole whsec_ secret, signed
//   here apart from the adapter (which uses the stripe package) so that a mistake in one shows.
// Events are posted only by the helpers (pay, expire, deliver), never as a side effect of an API call
// (Stripe would also send checkout.session.expired after an API expire, account.application.deauthorized
// after a deauthorize): tests post those with deliver(event(...)) when they need them.
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type StripeObject = Record<string, unknown>;

export interface FakeStripeAccount {
  id: string;
  chargesEnabled: boolean;
  payoutsEnabled: boolean;
  defaultCurrency: string;
  email: string | null;
  country: string;
  /** Disconnected from the platform: calls on it are refused. */
  deauthorized: boolean;
}

export interface FakeStripeRequest {
  method: string;
  path: string;
  stripeAccount: string | null;
  idempotencyKey: string | null;
  body: StripeObject;
  query: Record<string, string>;
}

export interface FakeStripeFailure {
  status: number;
  type: string;
  code?: string;
  message: string;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
  /** Sent as Stripe-Should-Retry, which the stripe package obeys over its own rules. */
  shouldRetry?: boolean;
}

export interface AccountOptions {
  accountId?: string;
  chargesEnabled?: boolean;
  payoutsEnabled?: boolean;
  defaultCurrency?: string;
  email?: string | null;
  country?: string;
}

export interface Delivery {
  /** The receiver's HTTP status, 0 when it could not be reached (or no webhookUrl is set). */
  status: number;
  body: string;
}

export interface FakeStripe {
  url: string;
  secretKey: string;
  clientId: string;
  webhookSecret: string;
  accounts: Map<string, FakeStripeAccount>;
  /** Checkout Sessions by id, with the account they were created on. */
  sessions: Map<string, { account: string; object: StripeObject }>;
  paymentIntents: Map<string, { account: string; object: StripeObject; refunded: number }>;
  refunds: { account: string; object: StripeObject }[];
  /** Every request as it arrived (before authentication), in order. */
  requests: FakeStripeRequest[];
  /** Where events are posted. */
  webhookUrl: string | null;
  /** How the next GET /oauth/authorize ends: an existing or new account's consent, or a refusal. */
  nextConsent(options: AccountOptions & { deny?: boolean }): void;
  /** A connected account; returns its id. */
  addAccount(options?: AccountOptions): string;
  /** The booker pays: the session completes and checkout.session.completed is posted. */
  pay(sessionId: string, options?: { asyncPayment?: boolean }): Promise<Delivery & { event: StripeObject }>;
  /** The session runs out (its expires_at passes): checkout.session.expired is posted. */
  expire(sessionId: string): Promise<Delivery & { event: StripeObject }>;
  event(type: string, object: StripeObject, account: string | null): StripeObject;
  /** Posts an event, signed unless told otherwise (another secret or timestamp, a header or body as given). */
  deliver(event: StripeObject, options?: { secret?: string; timestamp?: number; signatureHeader?: string; body?: string }): Promise<Delivery>;
  signatureFor(body: string, timestamp: number, secret?: string): string;
  /** The next request whose path starts with `pathPrefix` (after authentication) fails as given. */
  failNext(pathPrefix: string, failure: FakeStripeFailure): void;
  close(): Promise<void>;
}

// docs.stripe.com/currencies#minimum-and-maximum-charge-amounts (a few settlement currencies).
const MINIMUM_CHARGE: Record<string, number> = { usd: 50, eur: 50, gbp: 30, chf: 50, cad: 50, aud: 50, jpy: 50, sek: 300, nok: 300, dkk: 250 };
const MAX_AMOUNT = 99_999_999;
const API_VERSION = '2025-10-29.clover';

const random = (length: number) => randomBytes(length).toString('base64url').replace(/[-_]/g, '').slice(0, length).padEnd(length, '0');
const now = () => Math.floor(Date.now() / 1000);

/** `a[b][0][c]=v` pairs as nested objects, indexes as arrays. */
function parseForm(text: string): StripeObject {
  const root: StripeObject = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = [key.replace(/\[.*$/, ''), ...[...key.matchAll(/\[([^\]]*)\]/g)].map((match) => match[1]!)];
    let node: StripeObject = root;
    path.forEach((segment, index) => {
      if (index === path.length - 1) node[segment] = value;
      else node = (node[segment] ??= {}) as StripeObject;
    });
  }
  const arrays = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value).map(([key, inner]) => [key, arrays(inner)] as const);
    const indexed = entries.length > 0 && entries.every(([key], index) => key === String(index));
    return indexed ? entries.map(([, inner]) => inner) : Object.fromEntries(entries);
  };
  return arrays(root) as StripeObject;
}

class ApiError extends Error {
  constructor(readonly status: number, readonly type: string, message: string, readonly code?: string, readonly param?: string) {
    super(message);
  }
}
const invalid = (message: string, param?: string, code?: string) => new ApiError(400, 'invalid_request_error', message, code, param);
const missing = (kind: string, id: string, param: string) => new ApiError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, 'resource_missing', param);
const unrecognized = (method: string, path: string) =>
  new ApiError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`);
const mask = (key: string) => `${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`;

export async function startFakeStripe(options: { secretKey?: string; clientId?: string; webhookSecret?: string } = {}): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? `sk_test_${random(24)}`;
  const clientId = options.clientId ?? `ca_${random(32)}`;
  const webhookSecret = options.webhookSecret ?? `whsec_${random(32)}`;
  const accounts = new Map<string, FakeStripeAccount>();
  const sessions = new Map<string, { account: string; object: StripeObject }>();
  const paymentIntents = new Map<string, { account: string; object: StripeObject; refunded: number }>();
  const refunds: { account: string; object: StripeObject }[] = [];
  const requests: FakeStripeRequest[] = [];
  const codes = new Map<string, { account: string; scope: string; used: boolean }>();
  const refreshTokens = new Map<string, string>();
  const consents: (AccountOptions & { deny?: boolean })[] = [];
  const failures: { pathPrefix: string; failure: FakeStripeFailure }[] = [];
  const idempotent = new Map<string, { request: string; status: number; body: unknown }>();
  // Kept aside for the PaymentIntent pay() creates, as Stripe copies payment_intent_data onto it.
  const intentData = new Map<string, StripeObject>();
  let baseUrl = '';

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${random(14)}`, 'stripe-version': API_VERSION, ...headers });
    res.end(JSON.stringify(body));
  };
  const page = (res: http.ServerResponse, status: number, text: string) => res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>Stripe</title><p>${text.replace(/[<>&]/g, '')}</p>`);
  const apiError = (error: ApiError) => ({ error: { type: error.type, message: error.message, ...(error.code ? { code: error.code } : {}), ...(error.param ? { param: error.param } : {}) } });

  const addAccount = (opts: AccountOptions = {}): string => {
    const id = opts.accountId ?? `acct_1${random(15)}`;
    const existing = accounts.get(id);
    if (existing) {
      existing.deauthorized = false;
      return id;
    }
    accounts.set(id, {
      id,
      chargesEnabled: opts.chargesEnabled ?? true,
      payoutsEnabled: opts.payoutsEnabled ?? true,
      defaultCurrency: opts.defaultCurrency ?? 'usd',
      email: opts.email ?? null,
      country: opts.country ?? 'US',
      deauthorized: false,
    });
    return id;
  };

  const connected = (id: string | null): FakeStripeAccount => {
    const account = id ? accounts.get(id) : undefined;
    if (!account || account.deauthorized) {
      throw new ApiError(403, 'invalid_request_error', `The provided key '${mask(secretKey)}' does not have access to account '${id}' (or that account does not exist). Application access may have been revoked.`, 'account_invalid');
    }
    return account;
  };

  const createSession = (account: FakeStripeAccount, body: StripeObject): StripeObject => {
    if (!account.chargesEnabled) throw invalid(`The account ${account.id} cannot currently make charges: its charges_enabled is false.`);
    if (body.mode === undefined) throw invalid('Missing required param: mode.', 'mode');
    if (body.mode !== 'payment') throw invalid(`This fake serves mode=payment only, not ${String(body.mode)}.`, 'mode');
    for (const param of ['success_url', 'cancel_url']) {
      if (typeof body[param] !== 'string' || !/^https?:\/\//.test(body[param] as string)) throw invalid(`Missing required param: ${param}.`, param);
    }
    const items = body.line_items;
    if (!Array.isArray(items) || items.length === 0) throw invalid('Missing required param: line_items.', 'line_items');
    let currency: string | null = null;
    let amountTotal = 0;
    items.forEach((item: StripeObject, index) => {
      const at = `line_items[${index}]`;
      const price = item.price_data as StripeObject | undefined;
      if (!price) throw invalid(`Missing required param: ${at}[price_data].`, `${at}[price_data]`);
      const itemCurrency = String(price.currency ?? '');
      if (!/^[a-z]{3}$/.test(itemCurrency)) throw invalid(`Invalid currency: ${itemCurrency}. Stripe currently supports these currencies: usd, eur, gbp, ...`, `${at}[price_data][currency]`);
      if (currency && currency !== itemCurrency) throw invalid('All line items must share one currency.', `${at}[price_data][currency]`);
      currency = itemCurrency;
      const unitAmount = Number(price.unit_amount);
      if (!/^\d+$/.test(String(price.unit_amount ?? ''))) throw invalid(`Invalid integer: ${String(price.unit_amount)}`, `${at}[price_data][unit_amount]`);
      const quantity = item.quantity === undefined ? 1 : Number(item.quantity);
      if (!Number.isInteger(quantity) || quantity < 1) throw invalid(`Invalid integer: ${String(item.quantity)}`, `${at}[quantity]`);
      if (!(price.product_data as StripeObject | undefined)?.name) throw invalid(`Missing required param: ${at}[price_data][product_data][name].`, `${at}[price_data][product_data][name]`);
      amountTotal += unitAmount * quantity;
    });
    const minimum = MINIMUM_CHARGE[currency!] ?? 1;
    if (amountTotal < minimum) throw invalid(`The Checkout Session's total amount due must add up to at least ${minimum} ${currency} (in minor units).`, undefined, 'amount_too_small');
    if (amountTotal > MAX_AMOUNT) throw invalid(`Amount must be no more than ${MAX_AMOUNT} ${currency} (in minor units).`, undefined, 'amount_too_large');
    const created = now();
    let expiresAt = created + 24 * 3600;
    if (body.expires_at !== undefined) {
      if (!/^\d+$/.test(String(body.expires_at))) throw invalid(`Invalid integer: ${String(body.expires_at)}`, 'expires_at');
      expiresAt = Number(body.expires_at);
      if (expiresAt < created + 30 * 60 || expiresAt > created + 24 * 3600) {
        throw invalid('The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.', 'expires_at');
      }
    }
    const metadata = (body.metadata ?? {}) as Record<string, string>;
    for (const [key, value] of Object.entries(metadata)) {
      if (key.length > 40 || String(value).length > 500) throw invalid('Metadata keys can be up to 40 characters long and values up to 500 characters long.', `metadata[${key}]`);
    }
    if (Object.keys(metadata).length > 50) throw invalid('You can specify up to 50 keys in metadata.', 'metadata');
    if (typeof body.client_reference_id === 'string' && body.client_reference_id.length > 200) throw invalid('client_reference_id is longer than 200 characters.', 'client_reference_id');
    if (body.customer_email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(String(body.customer_email))) throw invalid(`Invalid email address: ${String(body.customer_email)}`, 'customer_email');
    const id = `cs_test_${random(58)}`;
    const session: StripeObject = {
      id,
      object: 'checkout.session',
      amount_subtotal: amountTotal,
      amount_total: amountTotal,
      cancel_url: body.cancel_url,
      client_reference_id: body.client_reference_id ?? null,
      created,
      currency,
      customer_email: body.customer_email ?? null,
      expires_at: expiresAt,
      livemode: false,
      metadata,
      mode: 'payment',
      payment_intent: null,
      payment_status: 'unpaid',
      status: 'open',
      success_url: body.success_url,
      url: `${baseUrl}/c/pay/${id}`,
    };
    sessions.set(id, { account: account.id, object: session });
    intentData.set(id, (body.payment_intent_data ?? {}) as StripeObject);
    return session;
  };

  const sessionOn = (account: FakeStripeAccount, id: string) => {
    const found = sessions.get(id);
    if (!found || found.account !== account.id) throw missing('checkout.session', id, 'session');
    return found.object;
  };

  const createRefund = (account: FakeStripeAccount, body: StripeObject): StripeObject => {
    const intentId = typeof body.payment_intent === 'string' ? body.payment_intent : '';
    if (!intentId) throw invalid('Missing required param: payment_intent.', 'payment_intent');
    const intent = paymentIntents.get(intentId);
    if (!intent || intent.account !== account.id) throw missing('payment_intent', intentId, 'payment_intent');
    if (intent.object.status !== 'succeeded') throw invalid(`This PaymentIntent (${intentId}) does not have a successful charge to refund.`, 'payment_intent');
    const remaining = Number(intent.object.amount) - intent.refunded;
    if (remaining <= 0) throw invalid(`Charge ${String(intent.object.latest_charge)} has already been refunded.`, undefined, 'charge_already_refunded');
    let amount = remaining;
    if (body.amount !== undefined) {
      if (!/^\d+$/.test(String(body.amount)) || Number(body.amount) < 1) throw invalid(`Invalid positive integer: ${String(body.amount)}`, 'amount');
      amount = Number(body.amount);
      if (amount > remaining) throw invalid(`Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining})`, 'amount');
    }
    intent.refunded += amount;
    const refund: StripeObject = {
      id: `re_${random(24)}`,
      object: 'refund',
      amount,
      charge: intent.object.latest_charge,
      created: now(),
      currency: intent.object.currency,
      metadata: body.metadata ?? {},
      payment_intent: intentId,
      reason: body.reason ?? null,
      status: 'succeeded',
    };
    refunds.push({ account: account.id, object: refund });
    return refund;
  };

  const api = (method: string, path: string, stripeAccount: string | null, body: StripeObject): StripeObject => {
    const accountRead = /^\/v1\/accounts\/([^/]+)$/.exec(path);
    if (method === 'GET' && accountRead) {
      const id = decodeURIComponent(accountRead[1]!);
      if (!accounts.has(id)) throw missing('account', id, 'account');
      const account = connected(id);
      return {
        id, object: 'account', type: 'standard', charges_enabled: account.chargesEnabled, payouts_enabled: account.payoutsEnabled,
        default_currency: account.defaultCurrency, email: account.email, country: account.country, details_submitted: true,
      };
    }
    const sessionPath = /^\/v1\/checkout\/sessions(?:\/([^/]+)(\/expire)?)?$/.exec(path);
    if (path === '/v1/refunds' && method === 'POST') {
      // The platform itself has no PaymentIntents here: a refund without Stripe-Account finds none.
      if (stripeAccount === null) throw missing('payment_intent', String(body.payment_intent ?? ''), 'payment_intent');
      return createRefund(connected(stripeAccount), body);
    }
    if (!sessionPath) throw unrecognized(method, path);
    // Direct charges only: a session on the platform itself is not something svc makes.
    if (stripeAccount === null) throw invalid('This fake serves Checkout Sessions on connected accounts only: send Stripe-Account.');
    const account = connected(stripeAccount);
    const [, id, expire] = sessionPath;
    if (!id && method === 'POST') return createSession(account, body);
    if (id && !expire && method === 'GET') return sessionOn(account, decodeURIComponent(id));
    if (id && expire && method === 'POST') {
      const session = sessionOn(account, decodeURIComponent(id));
      if (session.status !== 'open') throw invalid('Only Checkout Sessions with a status in ["open"] can be expired.');
      session.status = 'expired';
      return session;
    }
    throw unrecognized(method, path);
  };

  const tokenFor = (account: string, scope: string) => {
    const refreshToken = `rt_${random(40)}`;
    refreshTokens.set(refreshToken, account);
    return {
      access_token: `sk_test_${random(40)}`, livemode: false, refresh_token: refreshToken, token_type: 'bearer',
      stripe_publishable_key: `pk_test_${random(40)}`, stripe_user_id: account, scope,
    };
  };

  const oauthError = (res: http.ServerResponse, status: number, error: string, description: string) => send(res, status, { error, error_description: description });
  const oauth = (res: http.ServerResponse, path: string, body: StripeObject) => {
    if (path === '/oauth/token') {
      if (body.grant_type === 'refresh_token') {
        const account = refreshTokens.get(String(body.refresh_token));
        if (!account) return oauthError(res, 400, 'invalid_grant', `Refresh token does not exist: ${String(body.refresh_token)}`);
        return send(res, 200, tokenFor(account, 'read_write'));
      }
      if (body.grant_type !== 'authorization_code') return oauthError(res, 400, 'unsupported_grant_type', `Unsupported grant type: ${String(body.grant_type)}`);
      if (typeof body.code !== 'string' || !body.code) return oauthError(res, 400, 'invalid_request', 'No authorization code provided');
      const grant = codes.get(body.code);
      if (!grant || grant.used) return oauthError(res, 400, 'invalid_grant', `Authorization code does not exist: ${body.code}`);
      grant.used = true;
      return send(res, 200, tokenFor(grant.account, grant.scope));
    }
    if (path === '/oauth/deauthorize') {
      if (body.client_id !== clientId) return oauthError(res, 401, 'invalid_client', `No such application: '${String(body.client_id)}'`);
      const account = accounts.get(String(body.stripe_user_id));
      if (!account || account.deauthorized) {
        return oauthError(res, 401, 'invalid_client', `This application is not connected to stripe account ${String(body.stripe_user_id)}, or that account does not exist.`);
      }
      account.deauthorized = true;
      return send(res, 200, { stripe_user_id: account.id });
    }
    return oauthError(res, 404, 'invalid_request', `Unrecognized request URL (POST: ${path})`);
  };
  const authorize = (res: http.ServerResponse, query: URLSearchParams) => {
    const redirectUri = query.get('redirect_uri');
    // Per RFC 6749 4.1.2.1 an unknown client or redirect is shown to the user, never redirected to.
    if (query.get('client_id') !== clientId) return page(res, 400, `Invalid client_id: ${query.get('client_id') ?? '(none)'}`);
    if (!redirectUri || !/^https?:\/\//.test(redirectUri)) return page(res, 400, 'Invalid redirect_uri');
    const back = (params: Record<string, string>) => {
      const state = query.get('state');
      const target = new URL(redirectUri);
      for (const [name, value] of Object.entries({ ...params, ...(state === null ? {} : { state }) })) target.searchParams.set(name, value);
      res.writeHead(302, { location: target.toString() }).end();
    };
    if (query.get('response_type') !== 'code') return back({ error: 'unsupported_response_type', error_description: 'Only response_type=code is supported' });
    const scope = query.get('scope') ?? 'read_only';
    if (scope !== 'read_write' && scope !== 'read_only') return back({ error: 'invalid_scope', error_description: `Invalid scope: ${scope}` });
    const consent = consents.shift() ?? {};
    if (consent.deny) return back({ error: 'access_denied', error_description: 'The user denied your request' });
    const account = addAccount({ email: query.get('stripe_user[email]'), ...consent });
    const code = `ac_${random(32)}`;
    codes.set(code, { account, scope, used: false });
    back({ code, scope });
  };


  const apiKeyOf = (header: string | undefined): string | null => {
    const [scheme, value] = (header ?? '').split(' ', 2);
    if (!value) return null;
    if (/^bearer$/i.test(scheme!)) return value;
    if (/^basic$/i.test(scheme!)) return Buffer.from(value, 'base64').toString('utf8').split(':')[0]!;
    return null;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = req.method ?? 'GET';
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = parseForm(method === 'GET' ? '' : raw);
      const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : null);
      const stripeAccount = header('stripe-account');
      const idempotencyKey = header('idempotency-key');
      requests.push({ method, path: url.pathname, stripeAccount, idempotencyKey, body, query: Object.fromEntries(url.searchParams) });

      if (method === 'GET' && url.pathname === '/oauth/authorize') return authorize(res, url.searchParams);
      const hosted = /^\/c\/pay\/([^/]+)$/.exec(url.pathname);
      if (method === 'GET' && hosted) {
        const session = sessions.get(hosted[1]!)?.object;
        return session ? page(res, 200, `Pay ${String(session.amount_total)} ${String(session.currency)}: ${String(session.status)}`) : page(res, 404, 'Not found');
      }
      const isOAuth = url.pathname.startsWith('/oauth/');
      const key = apiKeyOf(req.headers.authorization) ?? (isOAuth && typeof body.client_secret === 'string' ? body.client_secret : null);
      if (key !== secretKey) {
        const message = key === null
          ? "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY')."
          : `Invalid API Key provided: ${mask(key)}`;
        return isOAuth ? oauthError(res, 401, 'invalid_client', message) : send(res, 401, { error: { type: 'invalid_request_error', message } });
      }
      const failureAt = failures.findIndex((entry) => url.pathname.startsWith(entry.pathPrefix));
      const failure = failureAt === -1 ? undefined : failures.splice(failureAt, 1)[0]!.failure;
      const failureHeaders = failure ? {
        ...(failure.retryAfter === undefined ? {} : { 'retry-after': String(failure.retryAfter) }),
        ...(failure.shouldRetry === undefined ? {} : { 'stripe-should-retry': String(failure.shouldRetry) }),
      } : {};
      const failureBody = failure && apiError(new ApiError(failure.status, failure.type, failure.message, failure.code));
      // Failures before an endpoint runs (rate limits, refusals) are not kept for the idempotency key.
      if (failure && failure.status < 500) return send(res, failure.status, failureBody, failureHeaders);
      if (isOAuth) return failure ? send(res, failure.status, failureBody, failureHeaders) : oauth(res, url.pathname, body);

      const scope = `${stripeAccount ?? 'platform'} ${idempotencyKey}`;
      const fingerprint = `${method} ${url.pathname} ${JSON.stringify(body)}`;
      const kept = method === 'POST' && idempotencyKey ? idempotent.get(scope) : undefined;
      if (kept && kept.request !== fingerprint) {
        return send(res, 400, apiError(new ApiError(400, 'idempotency_error',
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`)));
      }
      const echo = { ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}), ...(stripeAccount ? { 'stripe-account': stripeAccount } : {}) };
      if (kept) return send(res, kept.status, kept.body, { ...echo, 'idempotent-replayed': 'true' });
      let status = 200;
      let answer: unknown;
      if (failure) [status, answer] = [failure.status, failureBody];
      else {
        try {
          answer = structuredClone(api(method, url.pathname, stripeAccount, body));
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          return send(res, error.status, apiError(error), echo);
        }
      }
      if (method === 'POST' && idempotencyKey) idempotent.set(scope, { request: fingerprint, status, body: answer });
      send(res, status, answer, { ...echo, ...(failure ? failureHeaders : {}) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const signatureFor = (body: string, timestamp: number, secret = webhookSecret) =>
    `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;

  const fake: FakeStripe = {
    url: baseUrl,
    secretKey,
    clientId,
    webhookSecret,
    accounts,
    sessions,
    paymentIntents,
    refunds,
    requests,
    webhookUrl: null,
    nextConsent: (consent) => void consents.push(consent),
    addAccount,
    event: (type, object, account) => ({
      id: `evt_${random(24)}`, object: 'event', api_version: API_VERSION, created: now(), type, account, livemode: false,
      pending_webhooks: 1, request: { id: null, idempotency_key: null }, data: { object: structuredClone(object) },
    }),
    async deliver(event, opts = {}) {
      // Stripe posts its events pretty-printed: a receiver that re-serializes the JSON cannot verify them.
      const body = opts.body ?? JSON.stringify(event, null, 2);
      const signature = opts.signatureHeader ?? signatureFor(body, opts.timestamp ?? now(), opts.secret);
      if (!fake.webhookUrl) return { status: 0, body: '' };
      try {
        const response = await fetch(fake.webhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' },
          body,
        });
        return { status: response.status, body: await response.text() };
      } catch {
        return { status: 0, body: '' };
      }
    },
    async pay(sessionId, opts = {}) {
      const found = sessions.get(sessionId);
      if (!found || found.object.status !== 'open') throw new Error(`fake Stripe: session ${sessionId} is not open`);
      const session = found.object;
      const intentId = `pi_${random(24)}`;
      paymentIntents.set(intentId, {
        account: found.account,
        refunded: 0,
        object: {
          id: intentId, object: 'payment_intent', amount: session.amount_total, currency: session.currency, latest_charge: `ch_${random(24)}`,
          metadata: (intentData.get(sessionId)?.metadata as StripeObject | undefined) ?? {}, status: opts.asyncPayment ? 'processing' : 'succeeded',
        },
      });
      Object.assign(session, { status: 'complete', payment_status: opts.asyncPayment ? 'unpaid' : 'paid', payment_intent: intentId });
      const event = fake.event('checkout.session.completed', session, found.account);
      return { event, ...(await fake.deliver(event)) };
    },
    async expire(sessionId) {
      const found = sessions.get(sessionId);
      if (!found || found.object.status !== 'open') throw new Error(`fake Stripe: session ${sessionId} is not open`);
      found.object.status = 'expired';
      const event = fake.event('checkout.session.expired', found.object, found.account);
      return { event, ...(await fake.deliver(event)) };
    },
    signatureFor,
    failNext: (pathPrefix, failure) => void failures.push({ pathPrefix, failure }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
