import type { FastifySchema } from 'fastify';
import { ROUTE_THROTTLES, type RouteAccess } from './access.js';
import { IDEMPOTENCY_HEADER } from './mutation.js';
import { errorExample } from './openapi-error-examples.js';
import { groupReasons } from './openapi-reasons.js';

/**
 * The error responses of the API document. Each operation's statuses are derived from what its route
 * declares (access, input schemas, method, rate limiting, Idempotency-Key), and the `details.reason`
 * values it may answer with come from REASON_GROUPS (src/http/openapi-reasons.ts), kept in step with the services by
 * test/foundation/openapi.test.ts.
 */

const ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';

/** Documented in every error response that names `details.errors`. */
export const FIELD_ERROR_SCHEMA = {
  type: 'object',
  required: ['property', 'constraints'],
  properties: {
    property: { type: 'string', description: 'The field, as a dotted path (`attendee.email`, `availability.0.startTime`)', examples: ['attendee.email'] },
    value: { description: 'The value that was sent (credentials in the query string are `[REDACTED]`)' },
    constraints: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'What was wrong, keyed by the rule that failed',
      examples: [{ format: 'attendee.email must be a valid email' }],
    },
  },
} as const;

/** The body of every error answer (see `errorBody` in src/app/error-handler.ts). */
export const ERROR_ENVELOPE_SCHEMA = {
  type: 'object',
  description: 'Every error answer, whatever its status.',
  required: ['status', 'timestamp', 'path', 'error'],
  properties: {
    status: { type: 'string', enum: ['error'] },
    timestamp: { type: 'string', format: 'date-time', description: 'When the error was answered' },
    path: { type: 'string', description: 'The request URL (credentials in the query string redacted)', examples: ['/v2/bookings'] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          description: "The reference's exception name: BadRequestException, UnauthorizedException, ForbiddenException, NotFoundException, ConflictException, PayloadTooLargeException, UnprocessableEntityException, ThrottlerException, TokenExpiredException, InternalServerErrorException...",
          examples: ['BadRequestException'],
        },
        message: { type: 'string', description: 'Human-readable; for validation errors every bad field, joined with "; "' },
        details: {
          type: 'object',
          description: 'Machine-readable details: `reason` always, `errors` on validation failures, the limit on a 429.',
          required: ['reason'],
          properties: {
            reason: { type: 'string', description: "svc's stable machine-readable reason (snake_case), listed per operation", examples: ['validation_failed'] },
            errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } },
            limit: { type: 'string', description: 'On a 429: the limit that was reached (`Default`, or `Slots`, `Reservations`, `Bookings` for callers without credentials)' },
            limitPerWindow: { type: 'integer', description: 'On a 429: requests that limit allows per window' },
            windowSeconds: { type: 'integer', description: 'On a 429: the window, in seconds' },
            retryAfterSeconds: { type: 'integer', description: 'On a 429: seconds until the caller may send again (also `Retry-After`)' },
          },
          additionalProperties: true,
        },
      },
    },
  },
} as const;

/** What the document needs to know about a route to list its errors. */
export interface RouteFacts {
  method: string;
  /** Fastify pattern, e.g. `/v2/bookings/:bookingUid/cancel`. */
  url: string;
  access: RouteAccess | undefined;
  rateLimited: boolean;
  body: boolean;
  query: boolean;
  params: boolean;
  idempotent: boolean;
  /** The route answers its own input errors (`attachValidation`: the OAuth 2.0 endpoints' RFC 6749 bodies), not the envelope's 400. */
  ownInputErrors: boolean;
  /** The route's input schemas, from which its validation example is made. */
  schema: Pick<FastifySchema, 'body' | 'querystring' | 'params'>;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const writes = (route: RouteFacts) => WRITE_METHODS.has(route.method);
/** The 403 reasons of the organization and team access check (src/modules/access/tenant-access.ts). */
function tenantRefusals(url: string): string[] {
  return [
    ...(url.includes(':orgId') ? ['not_an_organization', 'not_organization_member'] : []),
    ...(url.includes(':teamId') ? ['not_team_member'] : []),
    'insufficient_role',
    'outside_oauth_client_organization',
  ];
}

const teamInOrganization = (route: RouteFacts) => route.access?.tenant !== undefined && route.url.includes(':orgId') && route.url.includes(':teamId');

const readsCredentials = (route: RouteFacts) => route.access !== undefined && route.access.auth !== 'none';

export function routeFacts(
  method: string,
  url: string,
  schema: FastifySchema | undefined,
  config: { access?: RouteAccess; rateLimit?: boolean } | undefined,
  attachValidation = false,
): RouteFacts {
  const headers = schema?.headers as { properties?: Record<string, unknown> } | undefined;
  return {
    method,
    url,
    access: config?.access,
    rateLimited: config?.rateLimit !== false,
    body: schema?.body !== undefined,
    query: schema?.querystring !== undefined,
    params: schema?.params !== undefined || url.includes('/:'),
    idempotent: headers?.properties?.[IDEMPOTENCY_HEADER] !== undefined,
    ownInputErrors: attachValidation,
    schema: { body: schema?.body, querystring: schema?.querystring, params: schema?.params },
  };
}

interface ErrorRule {
  status: number;
  code: string;
  /** Whether the route can answer this status by its declaration alone. */
  applies: (route: RouteFacts) => boolean;
  /** What the status means, one sentence. */
  meaning: string;
  /** Reasons every route given this status may answer with. */
  reasons: (route: RouteFacts) => readonly string[];
}

const RATE_LIMIT_HEADERS = ['Limit', 'Remaining', 'Reset'] as const;
const RATE_LIMIT_HEADER_TEXT: Record<(typeof RATE_LIMIT_HEADERS)[number], string> = {
  Limit: 'Requests allowed per window',
  Remaining: 'Requests left in the window (0 while blocked)',
  Reset: 'Seconds until the window or the block ends',
};

/** Statuses in the order they are documented. */
const ERROR_RULES: readonly ErrorRule[] = [
  {
    status: 400,
    code: 'BadRequestException',
    applies: (route) => !route.ownInputErrors && (route.body || route.query || route.params || route.idempotent),
    meaning: 'The input failed validation (`details.errors` lists each bad field) or was refused.',
    reasons: (route) => ['validation_failed', 'invalid_value', ...(writes(route) ? ['missing_reference'] : [])],
  },
  {
    status: 401,
    code: 'UnauthorizedException',
    applies: readsCredentials,
    meaning: 'Missing, malformed, unknown, expired or not-accepted credentials.',
    reasons: (route) => [
      ...(route.access?.auth === 'required' ? ['no_credentials'] : []),
      'invalid_bearer',
      'invalid_api_key',
      'api_key_expired',
      ...(route.access?.credentials.includes('accessToken') ? ['invalid_access_token', 'origin_not_allowed'] : []),
      'credential_kind_not_allowed',
      'missing_client_id',
      'missing_secret_key',
      'oauth_client_not_found',
      ...(route.access?.credentials.includes('oauthClient') ? ['invalid_client_secret', 'oauth_client_without_owner'] : []),
    ],
  },
  {
    status: 403,
    code: 'ForbiddenException',
    applies: (route) => readsCredentials(route) && (route.access?.scope != null || route.access?.systemAdmin === true),
    meaning: 'The caller is known but may not do this: a missing OAuth scope, an admin-only route, or a resource of someone else.',
    reasons: (route) => [
      ...(route.access?.scope && route.access.credentials.includes('accessToken') ? ['insufficient_scope'] : []),
      ...(route.access?.systemAdmin ? ['system_admin_only'] : []),
      ...(route.access?.tenant ? tenantRefusals(route.url) : []),
    ],
  },
  {
    status: 404,
    code: 'NotFoundException',
    // Documented where svc names what was not found (REASON_GROUPS, or a team outside the route's
    // organization); an unknown organization is a 403 (not_an_organization).
    applies: (route) => teamInOrganization(route),
    meaning: 'Nothing with that identifier, or nothing the caller may see.',
    reasons: (route) => (teamInOrganization(route) ? ['team_not_found'] : []),
  },
  {
    status: 409,
    code: 'ConflictException',
    applies: () => false,
    meaning: 'The change collides with existing data: a duplicate, or time another booking already holds.',
    reasons: (route) => (writes(route) ? ['duplicate_resource'] : []),
  },
  {
    status: 413,
    code: 'PayloadTooLargeException',
    applies: (route) => route.body,
    meaning: 'The body is larger than SVC_BODY_LIMIT_BYTES (1 MiB by default).',
    reasons: () => ['FST_ERR_CTP_BODY_TOO_LARGE'],
  },
  {
    status: 415,
    code: 'UnsupportedMediaTypeException',
    applies: (route) => route.body,
    meaning: 'The body is not `application/json`.',
    reasons: () => ['FST_ERR_CTP_INVALID_MEDIA_TYPE'],
  },
  {
    status: 422,
    code: 'UnprocessableEntityException',
    applies: (route) => route.idempotent,
    meaning: 'Well-formed but not processable now.',
    reasons: (route) => (route.idempotent ? ['idempotency_key_reused'] : []),
  },
  {
    status: 429,
    code: 'ThrottlerException',
    applies: (route) => route.rateLimited,
    meaning: 'Over the rate limit of the caller (API key, access token, OAuth client, or IP address without credentials). Wait `Retry-After` seconds.',
    reasons: () => ['rate_limited'],
  },
  {
    status: 498,
    code: 'TokenExpiredException',
    applies: (route) => readsCredentials(route) && route.access!.credentials.includes('accessToken'),
    meaning: 'The access token has expired: refresh it.',
    reasons: () => ['access_token_expired'],
  },
  {
    status: 500,
    code: 'InternalServerErrorException',
    applies: () => true,
    meaning: 'An unexpected failure; the log line with the same X-Request-Id has the cause.',
    reasons: () => ['internal_error'],
  },
  {
    status: 503,
    code: 'ServiceUnavailableException',
    applies: () => false,
    meaning: 'Not ready to serve.',
    reasons: () => [],
  },
];

export const DOCUMENTED_ERROR_STATUSES: readonly number[] = ERROR_RULES.map((rule) => rule.status);

function rateLimitHeaders(route: RouteFacts): Record<string, { description: string; type: 'integer' }> {
  const throttle = ROUTE_THROTTLES[`${route.method} ${route.url}`];
  const names = throttle ? ['Default', throttle] : ['Default'];
  const headers: Record<string, { description: string; type: 'integer' }> = {
    'Retry-After': { description: 'Seconds until the caller may send again', type: 'integer' },
  };
  for (const name of names) {
    for (const part of RATE_LIMIT_HEADERS) {
      const scope = name === 'Default' ? '' : ` (the ${name} limit, for callers without credentials)`;
      headers[`X-RateLimit-${part}-${name}`] = { description: `${RATE_LIMIT_HEADER_TEXT[part]}${scope}`, type: 'integer' };
    }
  }
  return headers;
}

/**
 * The error responses of one route, in the shape @fastify/swagger copies into the document: a
 * response schema with `content` is used as is (see resolveResponse in @fastify/swagger).
 */
export function errorResponses(route: RouteFacts): Record<string, unknown> {
  const fromGroups = groupReasons(route);
  const responses: Record<string, unknown> = {};
  for (const rule of ERROR_RULES) {
    const grouped = fromGroups.get(rule.status);
    if (!rule.applies(route) && (!grouped || (rule.status === 400 && route.ownInputErrors))) continue;
    const reasons = [...new Set([...rule.reasons(route), ...(grouped ?? [])])];
    const reasonText = reasons.length ? ` \`details.reason\`: ${reasons.map((reason) => `\`${reason}\``).join(', ')}.` : '';
    const documented = errorExample(rule.status, route, grouped ?? [], reasons);
    // A status no input of the route can bring about (a 400 of a route whose only input is a free-form id) is not listed.
    if (!documented) continue;
    const { path, message, details } = documented;
    const example = { status: 'error', timestamp: '2030-09-02T08:00:00.000Z', path, error: { code: rule.code, message, details } };
    responses[String(rule.status)] = {
      description: `\`${rule.code}\`. ${rule.meaning}${reasonText}`,
      ...(rule.status === 429 ? { headers: rateLimitHeaders(route) } : {}),
      content: { 'application/json': { schema: { $ref: ENVELOPE_REF }, example } },
    };
  }
  return responses;
}
