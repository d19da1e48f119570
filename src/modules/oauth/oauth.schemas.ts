import { type TSchema, Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schema-types.js';
import { SCOPES } from '../../http/scopes.js';
import { MAX_REDIRECT_URIS } from './oauth-clients.service.js';


export const OAuth2ClientIdParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 64, description: 'The OAuth 2.0 client id (`oa2_...`)' }) });

export const RegisterOAuth2ClientBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  redirectUris: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
    minItems: 1,
    maxItems: MAX_REDIRECT_URIS,
    description: `1 to ${MAX_REDIRECT_URIS} absolute https URLs (http on localhost), no fragment; the authorization request must name one exactly.`,
  }),
  scopes: Type.Array(StringEnum(SCOPES), { minItems: 1, description: 'The scopes users may grant the client (spec 5.4).' }),
  clientType: Type.Optional(StringEnum(['confidential', 'public'] as const, { default: 'confidential', description: 'A public client has no secret and must use PKCE (S256).' })),
  logo: Type.Optional(Type.String({ maxLength: 2048, description: 'An https URL of the logo shown on the consent screen' })),
});

export const OAuth2ClientOutput = Type.Object({
  id: Type.String(),
  name: Type.String(),
  logo: Nullable(Type.String()),
  clientType: StringEnum(['confidential', 'public'] as const),
  redirectUris: Type.Array(Type.String()),
  scopes: Type.Array(Type.String()),
  status: StringEnum(['pending', 'approved', 'rejected'] as const),
  ownerId: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  reviewedAt: Nullable(Type.String({ format: 'date-time' })),
});

/** `GET /v2/auth/oauth2/clients/{clientId}`: the reference's `OAuth2ClientDto`, what an authorization screen shows. */
export const OAuth2ClientReferenceOutput = Type.Object({
  client_id: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  redirect_uri: Type.String({ description: 'The first redirect URI (the reference keeps it for older callers)' }),
  name: Type.String(),
  logo: Nullable(Type.String()),
  is_trusted: Type.Boolean({ description: 'Always false: svc asks every user for consent' }),
  client_type: StringEnum(['CONFIDENTIAL', 'PUBLIC'] as const),
});

export const RegisteredOAuth2ClientOutput = Type.Object({
  ...OAuth2ClientOutput.properties,
  secret: Nullable(Type.String({ description: 'A confidential client\'s secret, shown only in this answer (svc keeps its hash); null for public clients.' })),
});

export const ReviewOAuth2ClientBody = Type.Object({ status: StringEnum(['approved', 'rejected'] as const) });

export const ReviewListQuery = Type.Object({
  status: Type.Optional(StringEnum(['pending', 'approved', 'rejected'] as const)),
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 250 })),
  skip: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

const param = (description: string) => Type.Optional(Type.String({ description }));

/** Token, revocation and introspection bodies: JSON or form; every field is checked by the endpoint (RFC 6749 errors). */
export const TokenRequestBody = Type.Object(
  {
    grant_type: param('`authorization_code` or `refresh_token`'),
    client_id: param('The client id (or HTTP Basic credentials)'),
    client_secret: param('Confidential clients: the secret (or HTTP Basic credentials)'),
    code: param('authorization_code: the code'),
    redirect_uri: param('authorization_code: the redirect URI of the authorization request'),
    code_verifier: param('authorization_code: the PKCE verifier (public clients; any client that sent a code_challenge)'),
    refresh_token: param('refresh_token: the refresh token'),
    scope: param('refresh_token: fewer scopes than granted (space separated), optional'),
  },
  { additionalProperties: true },
);

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  refresh_token: Type.String(),
  expires_in: Type.Integer({ description: 'Seconds: 1800' }),
  scope: Type.String({ description: 'The granted scopes, space separated' }),
});

export const TokenOperationBody = Type.Object(
  {
    token: param('The token'),
    token_type_hint: param('`access_token` or `refresh_token`'),
    client_id: param('The client id (or HTTP Basic credentials)'),
    client_secret: param('Confidential clients: the secret (or HTTP Basic credentials)'),
  },
  { additionalProperties: true },
);

export const IntrospectionResponse = Type.Object({
  active: Type.Boolean(),
  scope: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  sub: Type.Optional(Type.String({ description: 'The user id' })),
  token_type: Type.Optional(Type.String()),
  exp: Type.Optional(Type.Integer()),
  iat: Type.Optional(Type.Integer()),
  iss: Type.Optional(Type.String()),
});

export const ServerMetadata = Type.Object({
  issuer: Type.String(),
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  revocation_endpoint: Type.String(),
  introspection_endpoint: Type.String(),
  response_types_supported: Type.Array(Type.String()),
  grant_types_supported: Type.Array(Type.String()),
  code_challenge_methods_supported: Type.Array(Type.String()),
  authorization_response_iss_parameter_supported: Type.Boolean({ description: 'RFC 9207: every authorization response carries `iss`' }),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
  introspection_endpoint_auth_methods_supported: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
  service_documentation: Type.String(),
});
