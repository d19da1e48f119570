import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { parseIsoInstant } from '../lib/iso-instant.js';
import { isIanaTimeZone } from '../lib/time-zones.js';

/** svc's own string formats; the response serializer must know them too (it validates union branches). */
export const CUSTOM_FORMATS = {
  'time-zone': { type: 'string', validate: isIanaTimeZone },
  'hh-mm': /^([01]\d|2[0-3]):[0-5]\d$/,
  /** A date or a date-time (offset optional, read as UTC): what the reference's strict IsDateString takes. */
  'iso-8601': { type: 'string', validate: (text: string) => parseIsoInstant(text) !== null },
} as const;

function buildAjv(options: Options): Ajv {
  const ajv = new Ajv({
    // Every bad field is reported, like the reference's class-validator output.
    allErrors: true,
    // Unknown properties are dropped, never rejected (the reference's `whitelist: true`).
    removeAdditional: 'all',
    useDefaults: true,
    strict: false,
    ...options,
  });
  addFormats.default(ajv);
  for (const [name, format] of Object.entries(CUSTOM_FORMATS)) ajv.addFormat(name, format);
  return ajv;
}

/** Bodies are typed JSON: "30" is not 30. Query strings and path parameters are text and are coerced. */
const bodyAjv = buildAjv({ coerceTypes: false });
const textAjv = buildAjv({ coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ValidateFunction;
};


export interface FieldError {
  property: string;
  value: unknown;
  constraints: Record<string, string>;
}

function valueAt(root: unknown, pointer: string[]): unknown {
  let node = root;
  for (const key of pointer) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'enum':
      return `must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'format':
      return params.format === 'time-zone' ? 'must be a valid IANA time zone' : `must be a valid ${String(params.format)}`;
    case 'required':
      return 'is required';
    default:
      return error.message ?? 'is invalid';
  }
}

/**
 * Turns Ajv errors into one entry per bad field, named by its path (`availability.0.startTime`).
 * Union branches that failed for the same field collapse into the field's first message.
 */
export function toFieldErrors(errors: ErrorObject[], input: unknown, part?: string): FieldError[] {
  const byProperty = new Map<string, FieldError>();
  for (const error of errors) {
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
    const pointer = error.instancePath.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
    if (error.keyword === 'required') pointer.push(String((error.params as { missingProperty: string }).missingProperty));
    const property = pointer.join('.') || part || 'body';
    const entry = byProperty.get(property) ?? { property, value: valueAt(input, pointer), constraints: {} };
    entry.constraints[error.keyword] ??= `${property} ${describe(error)}`;
    byProperty.set(property, entry);
  }
  if (byProperty.size === 0 && errors[0]) {
    const property = errors[0].instancePath.split('/').slice(1).join('.') || part || 'body';
    byProperty.set(property, { property, value: undefined, constraints: { [errors[0].keyword]: `${property} ${describe(errors[0])}` } });
  }
  return [...byProperty.values()];
}

export function fieldErrorsMessage(errors: FieldError[]): string {
  return errors.flatMap((error) => Object.values(error.constraints)).join('; ');
}

interface Visit {
  value: unknown;
  key: string | null;
  parent: Visit | null;
  depth: number;
}

/** No request body svc accepts nests deeper than this (event-type booking fields reach 4). */
export const MAX_INPUT_DEPTH = 16;

export interface InputProblem {
  path: string[];
  problem: 'nul_character' | 'too_deep';
}

function pathOf(visit: Visit, lastKey?: string): string[] {
  const path = lastKey === undefined ? [] : [lastKey];
  for (let node: Visit | null = visit; node && node.key !== null; node = node.parent) path.unshift(node.key);
  return path;
}

/**
 * The first part of the input svc refuses before validating it: a string (or key) holding U+0000,
 * which PostgreSQL text and jsonb cannot store, or objects and arrays nested past MAX_INPUT_DEPTH,
 * which no schema accepts and which would overflow the stack of whatever recursed into them.
 * Iterative and linear: a hostile body may nest far deeper than the call stack.
 */
export function findUnacceptableInput(input: unknown): InputProblem | null {
  const pending: Visit[] = [{ value: input, key: null, parent: null, depth: 0 }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const { value } = visit;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { path: pathOf(visit), problem: 'nul_character' };
    } else if (value !== null && typeof value === 'object') {
      if (visit.depth >= MAX_INPUT_DEPTH) return { path: pathOf(visit), problem: 'too_deep' };
      for (const [key, child] of Object.entries(value)) {
        if (key.includes('\u0000')) return { path: pathOf(visit, key), problem: 'nul_character' };
        if (typeof child === 'string' || (child !== null && typeof child === 'object')) pending.push({ value: child, key, parent: visit, depth: visit.depth + 1 });
      }
    }
  }
  return null;
}
