import type { BasicCredentials, OAuthError, TokenParams } from './oauth-grants.service.js';

/** A token request as read at the edge: who the client says it is, its grant and its string parameters. */
export interface TokenRequest {
  clientId: string;
  grantType: 'authorization_code' | 'refresh_token';
  /** The client's secret, from the body or HTTP Basic; undefined when none was sent. */
  secret: string | undefined;
  params: TokenParams;
}

const invalidRequest = (description: string): OAuthError => ({ kind: 'error', status: 400, error: 'invalid_request', description });

/**
 * The fields the reference's token DTOs require, in their declaration order (its messages list them so).
 * `client_id` comes from the path on `/clients/{clientId}/token` and is checked before these.
 */
const REQUIRED = {
  authorization_code: { confidential: ['code', 'redirect_uri'], public: ['code', 'redirect_uri', 'code_verifier'] },
  refresh_token: { confidential: ['refresh_token'], public: ['refresh_token'] },
} as const;
const OPTIONAL = { authorization_code: ['client_secret', 'code_verifier'], refresh_token: ['client_secret'] } as const;

/** class-validator's message for a property that is not a string, as the reference's token pipe formats it. */
const notAString = (property: string) => `${property} property is wrong,${property} must be a string `;

/** The body's string parameters; anything else (numbers, arrays, objects) counts as not sent. */
function stringParams(body: Record<string, unknown>): TokenParams {
  const params: TokenParams = {};
  for (const [name, value] of Object.entries(body)) if (typeof value === 'string') params[name] = value;
  return params;
}

/**
 * Reads a token request the way the reference's `OAuth2TokenInputPipe` does, with the same
 * `invalid_request` descriptions: the client id (the path's must agree with the body's and HTTP Basic's),
 * the grant type, then the fields of the grant's shape. The shape is the confidential one when a
 * `client_secret` (or HTTP Basic) is sent, else the public one, which needs `code_verifier`. Unknown
 * parameters are ignored (RFC 6749 3.2), where the reference refuses them.
 */
export function readTokenRequest(rawBody: unknown, basic: BasicCredentials | null, pathClientId: string | null): TokenRequest | OAuthError {
  const body = rawBody !== null && typeof rawBody === 'object' && !Array.isArray(rawBody) ? (rawBody as Record<string, unknown>) : {};
  const params = stringParams(body);
  let clientId: string;
  if (pathClientId !== null) {
    if ((body.client_id !== undefined && body.client_id !== pathClientId) || (basic && basic.clientId !== pathClientId)) {
      return invalidRequest('client_id does not match the client id in the path');
    }
    clientId = pathClientId;
  } else {
    if (basic && body.client_id !== undefined && body.client_id !== basic.clientId) return invalidRequest('client_id does not match the HTTP Basic credentials');
    const named = basic?.clientId ?? params.client_id;
    if (!named) return invalidRequest('client_id is required');
    clientId = named;
  }
  const grantType = params.grant_type;
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') return invalidRequest("grant_type must be 'authorization_code' or 'refresh_token'");
  const confidential = basic !== null || 'client_secret' in body;
  const isMissing = (name: string) => typeof body[name] !== 'string';
  const isNotString = (name: string) => body[name] !== undefined && body[name] !== null && typeof body[name] !== 'string';
  const required: readonly string[] = REQUIRED[grantType][confidential ? 'confidential' : 'public'];
  const problems = [...required.filter(isMissing), ...OPTIONAL[grantType].filter((name) => !required.includes(name) && isNotString(name))];
  if (problems.length > 0) return invalidRequest(problems.map(notAString).join(', '));
  return { clientId, grantType, secret: basic?.secret ?? params.client_secret, params };
}
