import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app/context.js';
import { sha256Hex } from '../lib/crypto.js';
import { DomainError, forbidden, notFound, unauthorized } from '../lib/errors.js';
import { authorizeTenant, type TenantContext } from '../modules/access/tenant-access.js';
import { assertOriginAllowed, authenticateBearer, authenticatePlatformClient } from '../modules/auth/auth.service.js';
import type { Principal } from '../modules/auth/principal.js';
import { authorizePlatform } from '../modules/platform/oauth-clients.service.js';
import type { OAuthClientRow } from '../modules/platform/oauth-clients.repository.js';
import { type CredentialKind, ROUTE_THROTTLES, type RouteAccess } from './access.js';
import { scopesCover } from './scopes.js';

type GuardDeps = Pick<AppContext, 'database' | 'credentials' | 'rateLimitStore' | 'config' | 'tenancy' | 'clock'>;

export const NO_CREDENTIALS =
  "No authentication method provided. Either pass an API key as 'Bearer' header or OAuth client credentials as 'x-svc-secret-key' and 'x-svc-client-id' headers";

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** `Bearer <token>`, scheme case-insensitive, surrounding white space ignored (as the reference). */
function bearerToken(request: FastifyRequest): string | undefined | null {
  const value = header(request, 'authorization');
  if (value === undefined) return undefined;
  const match = /^bearer\s+(\S+)$/i.exec(value);
  return match ? match[1]! : null;
}

/** The `apiKey` query parameter of version 1 routes. */
function queryApiKey(request: FastifyRequest, routeAccess: RouteAccess): string | undefined {
  if (!routeAccess.apiKeyInQuery) return undefined;
  const value = (request.query as Record<string, unknown> | undefined)?.apiKey;
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The `:clientId` of a platform route: it names the client whose secret is sent, as the reference reads it. */
function pathClientId(request: FastifyRequest): string | undefined {
  const value = (request.params as Record<string, unknown> | undefined)?.clientId;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

async function resolvePrincipal(request: FastifyRequest, routeAccess: RouteAccess, deps: GuardDeps): Promise<Principal | null> {
  const bearer = bearerToken(request);
  const token = bearer === undefined ? queryApiKey(request, routeAccess) : bearer;
  const clientId = pathClientId(request) ?? header(request, 'x-svc-client-id');
  const secretKey = header(request, 'x-svc-secret-key');
  // As the reference, a complete pair of platform credentials is tried before a bearer token.
  if (clientId !== undefined && secretKey !== undefined && (token === undefined || routeAccess.credentials.includes('oauthClient'))) {
    assertKindAllowed('oauthClient', routeAccess);
    return authenticatePlatformClient(deps.database, clientId, secretKey);
  }
  if (token === null) throw unauthorized('invalid_bearer', 'Invalid Bearer token');
  if (token !== undefined) {
    const principal = await authenticateBearer(deps.database, deps.credentials, token, new Date(), new Date(deps.clock()));
    assertKindAllowed(principal.kind, routeAccess);
    assertOriginAllowed(principal, header(request, 'origin'));
    return principal;
  }
  if (clientId !== undefined || secretKey !== undefined) {
    // The reference's optional guard treats half a pair as no credentials (platform embeds send the client id alone).
    if (routeAccess.auth === 'optional') return null;
    if (clientId === undefined) throw unauthorized('missing_client_id', "Only 'x-svc-secret-key' header provided. Please also provide 'x-svc-client-id' header");
    throw unauthorized('missing_secret_key', "Only 'x-svc-client-id' header provided. Please also provide 'x-svc-secret-key' header");
  }
  if (routeAccess.auth === 'required') throw unauthorized('no_credentials', NO_CREDENTIALS);
  return null;
}

function assertKindAllowed(kind: CredentialKind, routeAccess: RouteAccess): void {
  if (routeAccess.credentials.length > 0 && !routeAccess.credentials.includes(kind)) {
    const names: Record<CredentialKind, string> = { apiKey: 'an API key', accessToken: 'an access token', oauthClient: 'OAuth client credentials' };
    throw unauthorized('credential_kind_not_allowed', `This endpoint cannot be called with ${names[kind]}`);
  }
}

function authorize(principal: Principal, routeAccess: RouteAccess): void {
  if (routeAccess.systemAdmin && principal.user.role !== 'ADMIN') {
    throw forbidden('system_admin_only', 'Only the system admin can call this endpoint');
  }
  if (routeAccess.scope && principal.scopes && !scopesCover(principal.scopes, routeAccess.scope)) {
    if (principal.client) {
      throw forbidden(
        'insufficient_scope',
        `PermissionsGuard - oAuth client with id=${principal.client.id} does not have the required permissions=${routeAccess.scope}. A client's permissions are chosen when it is created.`,
      );
    }
    throw forbidden('insufficient_scope', `Access token is missing the required scope ${routeAccess.scope}`);
  }
}

type TrackerKind = CredentialKind | 'anonymous';

function trackerOf(request: FastifyRequest, principal: Principal | null): { tracker: string; kind: TrackerKind } {
  if (principal) {
    const prefix = principal.kind === 'apiKey' ? 'api_key' : principal.kind === 'accessToken' ? 'access_token' : 'oauth_client';
    return { tracker: `${prefix}_${principal.credentialHash}`, kind: principal.kind };
  }
  return { tracker: `ip_${sha256Hex(request.ip)}`, kind: 'anonymous' };
}

const CALLERS: Record<TrackerKind, string> = { apiKey: 'API key', accessToken: 'access token', oauthClient: 'OAuth client', anonymous: 'address (requests without credentials)' };

/** The reference's 429 message, then which limit was hit, its size and when to try again. */
function throttled(name: string, kind: TrackerKind, limit: number, windowMs: number, retryAfterSeconds: number): DomainError {
  const windowSeconds = Math.round(windowMs / 1000);
  return new DomainError(
    'too_many_requests',
    'rate_limited',
    `ThrottlerException: Too many requests. Please try again later. The ${name} limit is ${limit} requests per ${windowSeconds} s for each ${CALLERS[kind]}; try again in ${retryAfterSeconds} s.`,
    { limit: name, limitPerWindow: limit, windowSeconds, retryAfterSeconds },
  );
}

/** Counts one hit of `tracker` under `name`; sets its headers, and Retry-After (seconds until the block ends) when refused; the seconds to wait, or 0. */
async function hit(request: FastifyRequest, reply: FastifyReply, deps: GuardDeps, name: string, tracker: string, limit: number): Promise<number> {
  const config = deps.config.rateLimit;
  let decision;
  try {
    decision = await deps.rateLimitStore.hit(tracker, { limit, windowMs: config.windowMs, blockMs: config.blockMs }, Date.now());
  } catch (error) {
    // The limiter's store being down must not take the API down with it.
    request.log.warn({ err: error }, 'rate limit store unavailable; request let through');
    return 0;
  }
  const resetSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
  reply.header(`X-RateLimit-Limit-${name}`, limit);
  reply.header(`X-RateLimit-Remaining-${name}`, decision.blocked ? 0 : Math.max(0, limit - decision.count));
  reply.header(`X-RateLimit-Reset-${name}`, resetSeconds);
  if (decision.blocked) reply.header('Retry-After', resetSeconds);
  return decision.blocked ? resetSeconds : 0;
}

async function applyRateLimit(request: FastifyRequest, reply: FastifyReply, principal: Principal | null, deps: GuardDeps) {
  const { tracker, kind } = trackerOf(request, principal);
  const config = deps.config.rateLimit;
  const limit = { apiKey: config.apiKey, accessToken: config.accessToken, oauthClient: config.oauthClient, anonymous: config.anonymous }[kind];
  const wait = await hit(request, reply, deps, 'Default', tracker, limit);
  if (wait > 0) throw throttled('Default', kind, limit, config.windowMs, wait);
  const name = kind === 'anonymous' ? ROUTE_THROTTLES[`${request.method} ${request.routeOptions.url}`] : undefined;
  if (!name) return;
  const routeWait = await hit(request, reply, deps, name, `${name.toLowerCase()}_${tracker}`, config.anonymousRoutes[name]);
  if (routeWait > 0) throw throttled(name, kind, config.anonymousRoutes[name], config.windowMs, routeWait);
}

/** onRequest: who is calling, may they call this route, and are they within their rate limit. */
export function createRequestGuard(deps: GuardDeps) {
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const routeAccess = request.routeOptions.config.access;
    const limited = deps.config.rateLimit.enabled && request.routeOptions.config.rateLimit !== false;
    if (!routeAccess) return; // unmatched routes: the 404 handler answers
    let principal: Principal | null = null;
    if (routeAccess.auth !== 'none') {
      try {
        principal = await resolvePrincipal(request, routeAccess, deps);
      } catch (error) {
        // Failed credentials count against the caller's address, so keys cannot be guessed at full speed.
        if (limited) await applyRateLimit(request, reply, null, deps);
        throw error;
      }
      if (principal) authorize(principal, routeAccess);
    }
    request.principal = principal;
    if (limited) await applyRateLimit(request, reply, principal, deps);
    if (routeAccess.tenant && principal) request.tenant = await authorizeTenant(deps, principal, routeAccess.tenant, request.params as Record<string, unknown>);
    if (routeAccess.platform && principal) request.oauthClient = await authorizePlatform(deps.database.db, principal, routeAccess.platform, pathClientId(request));
  };
}

/** The OAuth client of a route declared with `access.platform: 'client'` (the access check found it). */
export function oauthClientOf(request: FastifyRequest): OAuthClientRow {
  if (!request.oauthClient) throw new Error(`route ${request.routeOptions.url} reads an OAuth client it does not declare`);
  return request.oauthClient;
}

/** The organization and team of a route declared with `access.tenant` (the access check resolved them). */
export function tenantOf(request: FastifyRequest): TenantContext {
  if (!request.tenant) throw new Error(`route ${request.routeOptions.url} reads a tenant it does not declare`);
  return request.tenant;
}

/** The team of a route under `:teamId` (its access check found it); 404 when it is gone. */
export function tenantTeamOf(request: FastifyRequest) {
  const { team } = tenantOf(request);
  if (!team) throw notFound('team_not_found', `Team with id=${(request.params as { teamId: number }).teamId} not found`);
  return team;
}

/** The caller of a route declared with `auth: 'required'`. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized('no_credentials', NO_CREDENTIALS);
  return request.principal;
}
