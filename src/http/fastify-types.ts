import type { TenantContext } from '../modules/access/tenant-access.js';
import type { Principal } from '../modules/auth/principal.js';
import type { OAuthClientRow } from '../modules/platform/oauth-clients.repository.js';
import type { RouteAccess } from './access.js';
import type { ApiVersion } from './api-version.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, or null on a public route called without credentials. */
    principal: Principal | null;
    apiVersion: ApiVersion;
    /** On organization and team routes: the organization, the team and the caller's roles there. */
    tenant: TenantContext | null;
    /** On the routes of one platform OAuth client: that client (the access check found it). */
    oauthClient: OAuthClientRow | null;
    /** The error an answer carried (its code and `details.reason`), for the request's log line. */
    answeredError: { code: string; reason: string | undefined } | null;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
    /** false for operational routes (health, readiness, metrics) that are never throttled. */
    rateLimit?: boolean;
  }
}
