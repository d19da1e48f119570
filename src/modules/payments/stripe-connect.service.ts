// Connecting a Stripe account (Stripe Connect OAuth, Standard accounts) for a user or an organization's team,
// and checking it can take payments.
import type { AppContext } from '../../app/context.js';
import {
  exchangeStripeCode,
  retrieveStripeAccount,
  stripeAuthorizeUrl,
  type StripeConfig,
  StripeProviderError,
} from '../../integrations/stripe/client.js';
import { badRequest, notFound, unavailable } from '../../lib/errors.js';
import { consentReturnAddress, openState, sealState } from '../../lib/sealed-state.js';
import { stillHoldsTenantRule } from '../access/tenant-access.js';
import * as repo from './payments.repository.js';
import type { PaymentOwner } from './payments.repository.js';

export type StripeDeps = Pick<AppContext, 'database' | 'secrets' | 'config'>;

const CONNECT_STATE_PURPOSE = 'stripe-connect';
/** Who may connect a team's account (the team routes' rule, checked again when Stripe sends the browser back). */
export const TEAM_STRIPE_RULE = { role: 'TEAM_ADMIN', permissions: ['organization.manageBilling'] } as const;

interface ConnectState {
  owner: PaymentOwner;
  /** The organization of a team owner. */
  orgId: number | null;
  /** Who began the connection. */
  userId: number;
  returnTo: string | null;
  onErrorReturnTo: string | null;
}

/** svc's platform account at Stripe, or the reference's 404 when the operator has set none. */
export function requireStripe(deps: Pick<AppContext, 'config'>): StripeConfig {
  const stripe = deps.config.payments.stripe;
  if (!stripe) throw notFound('stripe_not_configured', 'Stripe app not found: this svc takes no payments (its operator sets STRIPE_SECRET_KEY, STRIPE_CLIENT_ID and STRIPE_WEBHOOK_SECRET)');
  return stripe;
}

/** Where Stripe sends the browser back: svc's user-level route, whoever the owner (the state says). */
export const stripeRedirectUri = (appUrl: string) => `${appUrl.replace(/\/+$/, '')}/v2/stripe/save`;

/**
 * GET …/stripe/connect: Stripe's consent page, with a state svc seals (the owner, who asked, where to send
 * the browser after, an expiry). Unlike the reference, the state carries no access token.
 */
export function stripeConnectUrl(
  deps: StripeDeps,
  connect: { owner: PaymentOwner; orgId: number | null; user: { id: number; email: string; name: string | null } },
  query: { returnTo?: string | undefined; onErrorReturnTo?: string | undefined },
): { authUrl: string } {
  const stripe = requireStripe(deps);
  const state: ConnectState = {
    owner: connect.owner,
    orgId: connect.orgId,
    userId: connect.user.id,
    returnTo: consentReturnAddress(query.returnTo, 'returnTo'),
    onErrorReturnTo: consentReturnAddress(query.onErrorReturnTo, 'onErrorReturnTo'),
  };
  const sealed = sealState(deps.secrets, CONNECT_STATE_PURPOSE, state);
  return { authUrl: stripeAuthorizeUrl(stripe, { state: sealed, redirectUri: stripeRedirectUri(deps.config.appUrl), email: connect.user.email, name: connect.user.name }) };
}

export interface StripeCallbackQuery {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

/** `{url}`: where the browser goes next (301), or '' when the flow named no address (200 with the body). */
export type StripeSaveOutcome = { url: string };

function openConnectState(deps: StripeDeps, sealed: string | undefined, team: { orgId: number; teamId: number } | null): ConnectState {
  if (!sealed) throw badRequest('stripe_state_invalid', 'Missing `state` query param', { property: 'state' });
  const state = openState<ConnectState>(deps.secrets, CONNECT_STATE_PURPOSE, sealed);
  // A team's own save route takes only that team's states (Stripe always comes back to the user-level one).
  const wrongTeam = team !== null && (state?.owner.kind !== 'team' || state.owner.teamId !== team.teamId || state.orgId !== team.orgId);
  if (!state || wrongTeam) throw badRequest('stripe_state_invalid', 'Invalid `state` query param: start again from GET /v2/stripe/connect', { property: 'state' });
  return state;
}

/**
 * GET …/stripe/save: Stripe's redirect after the consent page. The code is traded and the account read
 * before anything is stored; a team's account is stored only if whoever began still administers the
 * team. Success goes to `returnTo`, failure (a refused consent included) to `onErrorReturnTo`; a state
 * svc did not seal is refused (400): its addresses cannot be trusted.
 */
export async function saveStripeConnection(deps: StripeDeps, query: StripeCallbackQuery, team: { orgId: number; teamId: number } | null = null): Promise<StripeSaveOutcome> {
  const state = openConnectState(deps, query.state, team);
  try {
    await exchangeAndStore(deps, state, query);
    return { url: state.returnTo ?? '' };
  } catch (error) {
    if (state.onErrorReturnTo) return { url: state.onErrorReturnTo };
    throw error;
  }
}

async function exchangeAndStore(deps: StripeDeps, state: ConnectState, query: StripeCallbackQuery): Promise<void> {
  if (query.error === 'access_denied') throw badRequest('stripe_connect_denied', 'The Stripe account was not connected: the consent was refused');
  if (query.error) throw badRequest('stripe_connect_failed', `Could not connect Stripe: Stripe answered ${query.error}`);
  if (!query.code) throw badRequest('stripe_connect_failed', 'Could not connect Stripe: no code in the callback', { property: 'code' });
  const stripe = requireStripe(deps);
  let account: Awaited<ReturnType<typeof retrieveStripeAccount>>;
  let tokens: Awaited<ReturnType<typeof exchangeStripeCode>>;
  try {
    tokens = await exchangeStripeCode(stripe, query.code);
    account = await retrieveStripeAccount(stripe, tokens.accountId);
  } catch (error) {
    throw providerFailure(error, 'stripe_connect_failed', 'Could not connect Stripe');
  }
  const sealed = deps.secrets.seal(JSON.stringify({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, publishableKey: tokens.publishableKey, scope: tokens.scope }));
  await deps.database.transaction(async (tx) => {
    if (state.owner.kind === 'team' && !(await stillHoldsTenantRule(tx, state.userId, TEAM_STRIPE_RULE, state.orgId!, state.owner.teamId))) {
      throw badRequest('stripe_connect_failed', 'Could not connect Stripe: whoever began connecting no longer administers the team');
    }
    await repo.saveStripeAccount(tx, state.owner, { accountId: account.id, credentialsSealed: sealed, defaultCurrency: account.defaultCurrency, livemode: tokens.livemode, connectedByUserId: state.userId });
  });
}

/** A failed Stripe call: 503 when Stripe did not answer (try again), 400 when it refused. */
export function providerFailure(error: unknown, reason: string, what: string): Error {
  if (!(error instanceof StripeProviderError)) return error as Error;
  if (error.kind === 'unavailable' || error.kind === 'rate_limited') return unavailable('stripe_unavailable', `${what}: Stripe did not answer (${error.message}); try again`);
  return badRequest(reason, `${what}: ${error.message}`);
}

/**
 * GET …/stripe/check: the connected account can take payments (Stripe says charges and payouts are
 * enabled). 404 without one; 400 when it was disconnected or is not active yet.
 */
export async function checkStripeConnection(deps: StripeDeps, owner: PaymentOwner): Promise<{ status: 'success' }> {
  const stripe = requireStripe(deps);
  const connected = await repo.findStripeAccount(deps.database.db, owner);
  if (!connected) throw notFound('stripe_not_connected', 'Credentials for stripe not found.');
  if (connected.invalid) throw badRequest('stripe_credentials_invalid', 'Invalid stripe credentials.');
  let account: Awaited<ReturnType<typeof retrieveStripeAccount>>;
  try {
    account = await retrieveStripeAccount(stripe, connected.accountId);
  } catch (error) {
    if (error instanceof StripeProviderError && (error.kind === 'permission' || error.kind === 'not_found')) {
      await repo.markStripeAccountInvalid(deps.database.db, connected.accountId);
      throw badRequest('stripe_credentials_invalid', 'Invalid stripe credentials.');
    }
    throw providerFailure(error, 'stripe_credentials_invalid', 'Could not check the Stripe account');
  }
  if (!account.chargesEnabled || !account.payoutsEnabled) throw badRequest('stripe_account_inactive', 'Stripe account is not an active account');
  return { status: 'success' };
}
