import type { FastifySchema } from 'fastify';
import type { ValidateFunction } from 'ajv';
import type { RouteAccess } from './access.js';
import { DEFAULT_RATE_LIMITS, exampleCaller, reasonMessage } from './openapi-messages.js';
import { type FieldError, fieldErrorsMessage, toFieldErrors, validatorCompiler } from './validation.js';

/**
 * The example answer of each documented error status, made from what the operation itself can answer:
 * its own input (a real validation failure of one of its fields, computed with svc's validator), its
 * declared access (the 401 and 403 of its credentials and tenant rule), and its own reasons (the first
 * REASON_GROUPS lists for the status) with the message svc sends for them (openapi-messages.ts).
 */

export type InputPart = 'body' | 'querystring' | 'params';

export interface InvalidInput {
  part: InputPart;
  /** What was sent: the body, the query or the path parameters. */
  input: Record<string, unknown>;
  errors: FieldError[];
}

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; required?: string[]; enum?: unknown[]; format?: string; anyOf?: JsonSchema[] };

const EXAMPLE_ID = '42';
const EXAMPLE_UID = '5a9e8b6b-1047-467d-afe4-e90a25cedf61';
const exampleParam = (name: string) => (name.toLowerCase().includes('uid') ? EXAMPLE_UID : EXAMPLE_ID);

/** A concrete path for the examples: `/v2/bookings/5a9e...`, `/v2/schedules/42`. */
export const exampleUrl = (url: string, params: Readonly<Record<string, unknown>> = {}) =>
  url.replace(/:(\w+)/g, (_match, name: string) => String(params[name] ?? exampleParam(name)));

const typesOf = (schema: JsonSchema): string[] => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

/** A value of the wrong kind for a body property: JSON bodies are not coerced, so "30" is not 30. */
function wrongBodyValue(schema: JsonSchema): unknown {
  const types = typesOf(schema);
  if (types.length === 0) return undefined;
  if (types.includes('string')) return schema.enum || schema.format ? 'not-valid' : 42;
  return types.includes('integer') || types.includes('number') ? 'thirty' : 'yes';
}

/** A query or path value its text cannot be read as: a word where a number, a flag, a listed value or a format is wanted. */
function wrongTextValue(schema: JsonSchema): string | undefined {
  const types = typesOf(schema);
  if (types.some((type) => type === 'integer' || type === 'number' || type === 'boolean')) return 'abc';
  if (schema.enum || schema.format) return 'not-valid';
  return undefined;
}

/** An input the part's schema refuses, naming one of its own fields (or all its required ones). */
function refusedInput(part: InputPart, schema: JsonSchema): Record<string, unknown> | undefined {
  const properties = Object.entries(schema.properties ?? {});
  if (part === 'params') {
    // The route's own resource is its last parameter; the others get well-formed ids.
    const input = Object.fromEntries(properties.map(([name]) => [name, exampleParam(name)]));
    const own = properties.toReversed().find(([, property]) => wrongTextValue(property) !== undefined);
    return own ? { ...input, [own[0]]: wrongTextValue(own[1]) } : undefined;
  }
  if ((schema.required?.length ?? 0) > 0 || (schema.anyOf && part === 'body')) return {};
  for (const [name, property] of properties) {
    const value = part === 'body' ? wrongBodyValue(property) : wrongTextValue(property);
    if (value !== undefined) return { [name]: value };
  }
  return undefined;
}

/** The first of the route's input parts svc's validator refuses, with what it answers (src/app/error-handler.ts). */
export function invalidInputExample(schema: Pick<FastifySchema, 'body' | 'querystring' | 'params'>, method: string, url: string): InvalidInput | undefined {
  for (const part of ['body', 'querystring', 'params'] as const) {
    const partSchema = schema[part] as JsonSchema | undefined;
    if (!partSchema) continue;
    const input = refusedInput(part, partSchema);
    if (!input) continue;
    const validate = validatorCompiler({ schema: partSchema, httpPart: part, method, url }) as ValidateFunction;
    const checked = structuredClone(input);
    if (validate(checked) || !validate.errors) continue;
    return { part, input, errors: toFieldErrors(validate.errors, checked, part) };
  }
  return undefined;
}

/** What one error example needs to know about its route. */
export interface ExampleRoute {
  method: string;
  url: string;
  access: RouteAccess | undefined;
  schema: Pick<FastifySchema, 'body' | 'querystring' | 'params'>;
  idempotent: boolean;
}

export interface ErrorExample {
  path: string;
  message: string;
  details: Record<string, unknown> & { reason: string };
}

const IDEMPOTENCY_KEY_REFUSED = 'Idempotency-Key must be 1 to 255 visible ASCII characters';

/**
 * A 400: one of the route's own fields refused by validation, else its first own reason, else a
 * malformed Idempotency-Key; undefined where the route has no input svc could refuse.
 */
function badRequestExample(route: ExampleRoute, own: readonly string[]): ErrorExample | undefined {
  const refused = invalidInputExample(route.schema, route.method, route.url);
  if (refused) {
    const params = refused.part === 'params' ? refused.input : {};
    const query = refused.part === 'querystring' ? `?${new URLSearchParams(Object.entries(refused.input).map(([name, value]) => [name, String(value)]))}` : '';
    return { path: exampleUrl(route.url, params) + query, message: fieldErrorsMessage(refused.errors), details: { reason: 'validation_failed', errors: refused.errors } };
  }
  if (own[0]) return { path: exampleUrl(route.url), message: reasonMessage(own[0], route), details: { reason: own[0] } };
  if (!route.idempotent) return undefined;
  const errors = [{ property: 'Idempotency-Key', value: 'key with spaces', constraints: { 'Idempotency-Key': IDEMPOTENCY_KEY_REFUSED } }];
  return { path: exampleUrl(route.url), message: IDEMPOTENCY_KEY_REFUSED, details: { reason: 'validation_failed', errors } };
}

/** What a request without credentials is told: a `:clientId` in the path counts as the platform client id, so the secret is what is missing. */
const missingCredentialReason = (route: ExampleRoute) => (route.url.includes(':clientId') ? 'missing_secret_key' : 'no_credentials');

/** The reason a 403 example shows: the route's access rule first, then its own reasons. */
function forbiddenReason(route: ExampleRoute, own: readonly string[], documented: readonly string[]): string {
  const access = route.access;
  if (access?.systemAdmin) return 'system_admin_only';
  if (access?.tenant) return 'insufficient_role';
  if (access?.platform === 'organizationAdmin') return 'not_platform_organization_admin';
  return own[0] ?? documented[0]!;
}

/**
 * The example of one status. `own` are the reasons REASON_GROUPS lists for the route and status,
 * `documented` every reason the status is documented with.
 */
export function errorExample(status: number, route: ExampleRoute, own: readonly string[], documented: readonly string[]): ErrorExample | undefined {
  if (status === 400) return badRequestExample(route, own);
  let reason: string;
  if (status === 401) reason = route.access?.auth === 'required' ? missingCredentialReason(route) : (own[0] ?? 'invalid_api_key');
  else if (status === 403) reason = forbiddenReason(route, own, documented);
  // Any caller can be over the rate limit; a mail budget is reached by some bookings only.
  else if (status === 429) reason = 'rate_limited';
  else reason = own[0] ?? documented[0] ?? 'http_error';
  const extra = status === 429 ? rateLimitDetails(route) : {};
  return { path: exampleUrl(route.url), message: reasonMessage(reason, route), details: { ...extra, reason } };
}

/** What a 429 adds to `details` (src/http/request-guard.ts), for the route's first kind of caller at the default limits. */
function rateLimitDetails(route: ExampleRoute): Record<string, unknown> {
  return { limit: 'Default', limitPerWindow: DEFAULT_RATE_LIMITS[exampleCaller(route)], windowSeconds: 60, retryAfterSeconds: 42 };
}
