import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySchema, RouteOptions } from 'fastify';
import type { RouteAccess } from './access.js';
import { ERROR_ENVELOPE_SCHEMA, errorResponses, FIELD_ERROR_SCHEMA, routeFacts } from './openapi-errors.js';
import { examplesOf, type OperationExample } from './openapi-examples.js';

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
    ...(routeAccess.tenant ? { tenant: { role: routeAccess.tenant.role, permissions: routeAccess.tenant.permissions } } : {}),
  };
  const notes = [
    routeAccess.scope ? `OAuth scope: \`${routeAccess.scope}\`.` : '',
    routeAccess.systemAdmin ? 'System admin only.' : '',
  ].filter(Boolean);
  if (notes.length) documented.description = [documented.description, notes.join(' ')].filter(Boolean).join('\n\n');
  return documented;
}

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema> };

/**
 * A copy of `schema` carrying the examples' values: one as JSON Schema `examples`, several as named
 * `x-examples` (which @fastify/swagger turns into the media type's `examples`, each with its summary).
 * The route's own (validation) schema is never changed.
 */
function withExamples(schema: unknown, examples: readonly { name: string; summary: string; value: unknown }[]): JsonSchema {
  if (examples.length === 1) return { ...(schema as JsonSchema), examples: [examples[0]!.value] };
  return { ...(schema as JsonSchema), 'x-examples': Object.fromEntries(examples.map(({ name, summary, value }) => [name, { summary, value }])) };
}

/** A copy of an object schema whose listed properties each carry their example (one per parameter). */
function withPropertyExamples(schema: unknown, values: Readonly<Record<string, unknown>>): JsonSchema {
  const object = schema as JsonSchema;
  const properties = { ...object.properties };
  for (const [name, value] of Object.entries(values)) {
    if (properties[name]) properties[name] = { ...properties[name], examples: [value] };
  }
  return { ...object, properties };
}

/** Adds one operation's request and response examples (see openapi-examples.ts); parameters show the first example's values. */
export function openApiExamples(schema: FastifySchema, examples: readonly OperationExample[]): FastifySchema {
  const [first] = examples;
  if (!first) return schema;
  const documented = { ...schema } as FastifySchema & Record<string, unknown>;
  const named = (pick: (example: OperationExample) => unknown) => examples.flatMap((example) => (pick(example) === undefined ? [] : [{ name: example.name, summary: example.summary, value: pick(example) }]));
  const bodies = named((example) => example.body);
  if (bodies.length && schema.body) documented.body = withExamples(schema.body, bodies);
  if (first.query && schema.querystring) documented.querystring = withPropertyExamples(schema.querystring, first.query);
  if (first.params && schema.params) documented.params = withPropertyExamples(schema.params, first.params);
  const responses = { ...(schema.response as Record<string, unknown>) };
  for (const status of new Set(examples.map((example) => example.status))) {
    const answers = named((example) => (example.status === status ? example.response : undefined));
    if (responses[status]) responses[status] = withExamples(responses[status], answers);
  }
  documented.response = responses;
  const summaries = examples.map((example) => example.summary);
  const text = summaries.length === 1 ? `**Example:** ${summaries[0]}.` : `**Examples:**\n${summaries.map((summary) => `- ${summary}.`).join('\n')}`;
  documented.description = [documented.description, text].filter(Boolean).join('\n\n');
  return documented;
}

/** Adds the error responses the route can give (see openapi-errors.ts) next to its success responses. */
export function openApiErrors(schema: FastifySchema, route: Pick<RouteOptions, 'method' | 'url' | 'config' | 'attachValidation'>): FastifySchema {
  const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
  const config = route.config as { access?: RouteAccess; rateLimit?: boolean } | undefined;
  const errors = errorResponses(routeFacts(method, route.url, schema, config, route.attachValidation === true));
  return { ...schema, response: { ...errors, ...(schema.response as Record<string, unknown> | undefined) } };
}

/** The route's schema as the document shows it: access, examples, error responses. */
export function documentRoute(schema: FastifySchema | undefined, route: Pick<RouteOptions, 'method' | 'url' | 'config' | 'attachValidation'>): FastifySchema {
  const config = route.config as { access?: RouteAccess } | undefined;
  const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
  const secured = openApiSecurity(schema, config?.access);
  return openApiErrors(openApiExamples(secured, examplesOf(`${method} ${route.url}`)), route);
}

export const DOCS_TITLE = 'svc API reference';

const GETTING_STARTED = `svc is a scheduling backend: event types, availability, slots and bookings. Its API is wire-compatible with the reference scheduling API v2, with \`svc\` where the reference carries its maker's name (\`svc-api-version\`, \`svc_\` API keys, \`x-svc-secret-key\`).

## Base URL

Paths are relative to the server: \`http://localhost:5555\` by default (\`PORT\`). API paths start with \`/v2\`; bodies are JSON.

## Authentication

- \`Authorization: Bearer svc_...\`: a user's API key. The system admin creates users, each with a first key, through \`POST /v2/admin/users\`; \`POST /v2/api-keys/refresh\` replaces a key. An OAuth access token goes in the same header and is limited to its scopes.
- Platform OAuth clients send \`x-svc-client-id\` (or the path's \`{clientId}\`) and \`x-svc-secret-key\`, and act as their organization's owner. Their managed users' access tokens (\`POST /v2/oauth-clients/{clientId}/users\`, valid 60 minutes, then 498; refreshed with \`POST /v2/oauth/{clientId}/refresh\`) go in \`Authorization: Bearer\` and are limited to the client's permissions.

Each operation lists the credentials it accepts and the OAuth scope it needs (\`x-svc-access\`). Slots and booking are open to anyone.

## Versions

Send \`svc-api-version\` with the version of the area you call:

| Area | \`svc-api-version\` |
|---|---|
| Event types | \`2024-06-14\` |
| Schedules | \`2024-06-11\` |
| Bookings | \`2024-08-13\` |
| Slots and slot reservations | \`2024-09-04\` |

Without the header svc answers with these same shapes (the reference falls back to older ones), except that routes that exist only in a newer version answer 404. Webhooks, profile, API-key and admin routes take no version.

## Errors

Every error answer has one body: \`{"status": "error", "timestamp", "path", "error": {"code", "message", "details"}}\` (schema \`ErrorEnvelope\`). \`error.code\` is the reference's exception name (\`BadRequestException\`, \`NotFoundException\`...); \`error.details.reason\` is svc's stable machine-readable reason; a validation error lists each bad field in \`error.details.errors\` as \`{property, value, constraints}\`. Each operation lists the statuses and reasons it can answer with. Every answer carries \`X-Request-Id\`.

## Idempotency-Key

Write operations that list an \`idempotency-key\` header (bookings, webhooks) accept \`Idempotency-Key: <1 to 255 visible ASCII characters>\`: a retry with the same key and the same request replays the first answer (header \`Idempotent-Replayed: true\`) and changes nothing; the same key with another request is a 422. Keys last 24 hours.

## Rate limits

Per window (60 s by default): 120 requests per API key, 500 per access token or OAuth client, 120 per IP address without credentials, with tighter limits for anonymous slot listings, reservations and bookings (with their reschedules and cancellations). Answers carry \`X-RateLimit-Limit-Default\`, \`X-RateLimit-Remaining-Default\` and \`X-RateLimit-Reset-Default\`; over the limit the answer is 429 \`ThrottlerException\` with \`Retry-After\`. Without credentials, what a booking, reschedule or cancellation mails to guests also counts against an hourly budget per IP address and per event type (40 and 400 messages by default; each booker's own message is free): a request that does not fit is a 429 with \`details.reason: "mail_limit_reached"\` naming \`guests\`, and changes nothing.

## First calls

1. \`POST /v2/schedules\` (\`svc-api-version: 2024-06-11\`): when you are available.
2. \`POST /v2/event-types\` (\`2024-06-14\`): what can be booked, on that schedule.
3. \`GET /v2/slots?eventTypeId=31&start=2030-09-02&end=2030-09-03&timeZone=Europe/Rome\` (\`2024-09-04\`): the starts that can be booked.
4. \`POST /v2/bookings\` (\`2024-08-13\`): book one of them.

Then \`POST /v2/bookings/{bookingUid}/reschedule\`, \`POST /v2/bookings/{bookingUid}/cancel\`, and \`POST /v2/webhooks\` to hear about every change. Each of these operations carries a worked example, the answers of one feeding the next:

\`\`\`sh
curl -X POST http://localhost:5555/v2/schedules \\
  -H "Authorization: Bearer $SVC_API_KEY" -H 'svc-api-version: 2024-06-11' -H 'Content-Type: application/json' \\
  -d '{"name": "Working hours", "timeZone": "Europe/Rome", "isDefault": true}'
\`\`\``;

/** @fastify/swagger options: the document's info and shared components, and each route's documentation. */
export function swaggerOptions(): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'svc scheduling API', version: '2.0.0', description: GETTING_STARTED },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key (svc_...) or an access token' },
          svcSecretKey: { type: 'apiKey', in: 'header', name: 'x-svc-secret-key' },
          svcClientId: { type: 'apiKey', in: 'header', name: 'x-svc-client-id' },
        },
        schemas: { ErrorEnvelope: ERROR_ENVELOPE_SCHEMA as never, FieldError: FIELD_ERROR_SCHEMA as never },
      },
    },
    transform: ({ schema, url, route }) => ({ schema: documentRoute(schema, route), url }),
  };
}
