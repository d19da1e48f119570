import type { FastifySchema } from 'fastify';
import type { RouteAccess } from './access.js';

/** Documents each route's declared access: its security schemes, and the scope an OAuth token needs. */
export function openApiSecurity(schema: FastifySchema | undefined, routeAccess: RouteAccess | undefined): FastifySchema {
  const documented = { ...(schema ?? {}) } as FastifySchema & Record<string, unknown>;
  if (!routeAccess || routeAccess.auth === 'none') {
    documented.security = [];
    return documented;
  }
  const security: Record<string, string[]>[] = [];
  if (routeAccess.credentials.includes('apiKey') || routeAccess.credentials.includes('accessToken')) security.push({ bearer: [] });
  if (routeAccess.credentials.includes('oauthClient')) security.push({ svcSecretKey: [], svcClientId: [] });
  if (routeAccess.auth === 'optional') security.push({});
  documented.security = security;
  documented['x-svc-access'] = {
    auth: routeAccess.auth,
    credentials: routeAccess.credentials,
    scope: routeAccess.scope,
    systemAdmin: routeAccess.systemAdmin ?? false,
  };
  const notes = [
    routeAccess.scope ? `OAuth scope: \`${routeAccess.scope}\`.` : '',
    routeAccess.systemAdmin ? 'System admin only.' : '',
  ].filter(Boolean);
  if (notes.length) documented.description = [documented.description, notes.join(' ')].filter(Boolean).join('\n\n');
  return documented;
}
