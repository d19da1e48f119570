import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { handleError } from '../../app/error-handler.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { SCOPES } from '../../http/scopes.js';
import { acceptFormBodies } from '../../web/layout.js';
import {
  authenticateClient,
  type BasicCredentials,
  exchangeToken,
  introspectToken,
  type OAuthError,
  oauthIssuer,
  revokeToken,
  type TokenParams,
} from './oauth-grants.service.js';
import { readTokenRequest } from './oauth-token-request.js';
import { IntrospectionResponse, OAuth2ClientIdParams, ServerMetadata, TokenOperationBody, TokenRequestBody, TokenResponse } from './oauth.schemas.js';

const FORM_LIMIT_BYTES = 16 * 1024;

/** `Authorization: Basic base64(client_id:client_secret)`, each part form-encoded (RFC 6749 2.3.1). */
function basicCredentials(request: FastifyRequest): BasicCredentials | null {
  const match = /^basic\s+([A-Za-z0-9+/=]+)$/i.exec(request.headers.authorization?.trim() ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    return { clientId: decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' ')), secret: decodeURIComponent(decoded.slice(colon + 1).replaceAll('+', ' ')) };
  } catch {
    return null;
  }
}

/** The body's string parameters; anything else (numbers, arrays, objects) counts as not sent. */
function paramsOf(body: unknown): TokenParams {
  const params: TokenParams = {};
  if (body && typeof body === 'object') {
    for (const [name, value] of Object.entries(body)) if (typeof value === 'string') params[name] = value;
  }
  return params;
}

/** RFC 6749 5.1/5.2: no caching of token answers; errors as `{error, error_description}`. */
function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
}

function sendOAuthError(reply: FastifyReply, failure: OAuthError, basicUsed: boolean): FastifyReply {
  if (failure.status === 401 && basicUsed) reply.header('WWW-Authenticate', 'Basic realm="svc"');
  return noStore(reply).status(failure.status).send({ error: failure.error, error_description: failure.description });
}

const isError = (value: object): value is OAuthError => 'kind' in value && (value as { kind: unknown }).kind === 'error';

/** A body that cannot be read is the client's `invalid_request`, in the RFC's shape too. */
function handleTokenEndpointError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const status = (error as FastifyError).statusCode;
  if (status === 400 || status === 415 || status === 413) {
    return noStore(reply).status(status).send({ error: 'invalid_request', error_description: error.message });
  }
  return handleError(error, request, reply);
}

/**
 * The OAuth 2.0 authorization server's endpoints (beside the consent page): token exchange (endpoint
 * 27, spec 5.3), revocation (RFC 7009), introspection (RFC 7662) and metadata (RFC 8414).
 */
export function registerOAuth2Routes(app: App, ctx: AppContext): void {
  const base = oauthIssuer(ctx.config.appUrl);
  const tags = ['OAuth 2.0'];

  app.get('/.well-known/oauth-authorization-server', {
    config: { access: access.public() },
    schema: { tags, summary: 'Authorization server metadata (RFC 8414)', response: { 200: ServerMetadata } },
    handler: async () => ({
      issuer: base,
      authorization_endpoint: `${base}/auth/oauth2/authorize`,
      token_endpoint: `${base}/v2/auth/oauth2/token`,
      revocation_endpoint: `${base}/v2/auth/oauth2/revoke`,
      introspection_endpoint: `${base}/v2/auth/oauth2/introspect`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
      introspection_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
      scopes_supported: [...SCOPES],
      service_documentation: `${base}/docs`,
    }),
  });

  void app.register(async (plain) => {
    const endpoints = plain.withTypeProvider<TypeBoxTypeProvider>();
    acceptFormBodies(endpoints, FORM_LIMIT_BYTES);
    endpoints.setErrorHandler(handleTokenEndpointError);

    const exchange = async (request: FastifyRequest, reply: FastifyReply, pathClientId: string | null) => {
      const basic = basicCredentials(request);
      const tokenRequest = readTokenRequest(request.body, basic, pathClientId);
      if (isError(tokenRequest)) return sendOAuthError(reply, tokenRequest, basic !== null);
      const outcome = await ctx.changes.transaction(ctx.database, (tx, announce) => exchangeToken(tx, announce, tokenRequest, new Date(ctx.clock())));
      if (isError(outcome)) return sendOAuthError(reply, outcome, basic !== null);
      return noStore(reply).status(200).send(outcome);
    };
    const tokenDescription =
      'JSON or `application/x-www-form-urlencoded`. `grant_type=authorization_code` with `code`, `redirect_uri` and `client_secret` (confidential clients; or HTTP Basic) or `code_verifier` (public clients, PKCE S256); `grant_type=refresh_token` with `refresh_token` (and `client_secret` for confidential clients). Refresh tokens rotate: a used one presented again revokes every token of its authorization. Errors are RFC 6749 bodies `{error, error_description}` with the reference\'s descriptions (`client_not_found`, `invalid_client_credentials`, `code_invalid_or_expired`, `redirect_uri_mismatch`, `pkce_verification_failed`, `invalid_refresh_token`, `refresh_token_revoked`, ...).';

    endpoints.post('/v2/auth/oauth2/token', {
      config: { access: access.public() },
      attachValidation: true,
      schema: {
        tags,
        summary: 'Exchange an authorization code or a refresh token for tokens',
        description: `Endpoint 27 (spec 5.3), the client named by \`client_id\` (or HTTP Basic). ${tokenDescription}`,
        body: TokenRequestBody,
        response: { 200: TokenResponse },
      },
      handler: (request, reply) => exchange(request, reply, null),
    });

    endpoints.post('/v2/auth/oauth2/clients/:clientId/token', {
      config: { access: access.public() },
      attachValidation: true,
      schema: {
        tags,
        summary: 'Exchange an authorization code or a refresh token for tokens (client in the path)',
        description: `The reference\'s token path: the client is the path\'s; a \`client_id\` in the body or HTTP Basic must be the same. ${tokenDescription}`,
        params: OAuth2ClientIdParams,
        body: TokenRequestBody,
        response: { 200: TokenResponse },
      },
      handler: (request, reply) => exchange(request, reply, request.params.clientId),
    });

    endpoints.post('/v2/auth/oauth2/revoke', {
      config: { access: access.public() },
      attachValidation: true,
      schema: {
        tags,
        summary: 'Revoke a token (RFC 7009)',
        description: 'svc extension. A refresh token is revoked with every token of its authorization; an access token alone. Unknown tokens, and tokens of other clients, get the same 200.',
        body: TokenOperationBody,
      },
      handler: async (request, reply) => {
        const basic = basicCredentials(request);
        const params = paramsOf(request.body);
        const failure = await ctx.changes.transaction(ctx.database, async (tx, announce) => {
          const client = await authenticateClient(tx, params, basic);
          return isError(client) ? client : revokeToken(tx, announce, client, params);
        });
        if (failure) return sendOAuthError(reply, failure, basic !== null);
        return noStore(reply).status(200).send({});
      },
    });

    endpoints.post('/v2/auth/oauth2/introspect', {
      config: { access: access.public() },
      attachValidation: true,
      schema: {
        tags,
        summary: 'Introspect a token (RFC 7662)',
        description: 'svc extension, for confidential clients (client_secret or HTTP Basic). Only tokens issued to the calling client are reported active.',
        body: TokenOperationBody,
        response: { 200: IntrospectionResponse },
      },
      handler: async (request, reply) => {
        const basic = basicCredentials(request);
        const params = paramsOf(request.body);
        const client = await authenticateClient(ctx.database.db, params, basic);
        if (isError(client)) return sendOAuthError(reply, client, basic !== null);
        if (client.clientType !== 'confidential') {
          return sendOAuthError(reply, { kind: 'error', status: 401, error: 'invalid_client', description: 'Introspection is for confidential clients.' }, basic !== null);
        }
        const answer = await introspectToken(ctx.database.db, client, params, base, new Date(ctx.clock()));
        if (isError(answer as object)) return sendOAuthError(reply, answer as OAuthError, basic !== null);
        return noStore(reply).status(200).send(answer);
      },
    });
  });
}
