// Who of a round-robin team event type's hosts may take its bookings, by their organization attributes
// (the reference's assignRRMembersUsingSegment): a condition written in JsonLogic (jsonlogic.com, the
// json-logic-js library evaluates it) over `attributes.<slug>`, each member's value of that attribute
// (a string; a number for NUMBER attributes; an array of strings for MULTI_SELECT ones). svc takes
// JsonLogic rather than the reference's query-builder trees: those are the state of its web app's editor,
// not a documented format, and its v2 API takes neither (README, differences).
import jsonLogic from 'json-logic-js';
import { invalidField } from '../../lib/errors.js';

/** The operators a condition may use: comparisons, membership, logic and `var`. */
const OPERATORS = new Set(['var', 'and', 'or', '!', '!!', '==', '!=', '===', '!==', '<', '<=', '>', '>=', 'in', 'if']);
const MAX_DEPTH = 20;
const MAX_BYTES = 10_000;

export type SegmentQuery = Record<string, unknown>;

/**
 * A condition as the event type stores it: JsonLogic with the operators above, naming only attributes the
 * organization has (`attributes.<slug>`). A 400 naming `field` otherwise.
 */
export function assertSegmentQuery(query: unknown, attributeSlugs: ReadonlySet<string>, field: string): SegmentQuery {
  if (query === null || typeof query !== 'object' || Array.isArray(query)) throw invalidField(field, 'must be a JsonLogic object, e.g. {"==": [{"var": "attributes.region"}, "Europe"]}', query);
  if (JSON.stringify(query).length > MAX_BYTES) throw invalidField(field, `must be at most ${MAX_BYTES} characters of JSON`);
  const walk = (node: unknown, depth: number): void => {
    if (depth > MAX_DEPTH) throw invalidField(field, `is nested more than ${MAX_DEPTH} levels deep`);
    if (Array.isArray(node)) return node.forEach((item) => walk(item, depth + 1));
    if (node === null || typeof node !== 'object') return;
    const keys = Object.keys(node);
    if (keys.length !== 1) throw invalidField(field, `has an object with ${keys.length} keys: each operation is an object of one operator`, node);
    const operator = keys[0]!;
    if (!OPERATORS.has(operator)) throw invalidField(field, `uses the operator "${operator}": allowed are ${[...OPERATORS].join(', ')}`, operator);
    const argument = (node as Record<string, unknown>)[operator];
    if (operator === 'var') {
      const name = Array.isArray(argument) ? argument[0] : argument;
      const slug = typeof name === 'string' && name.startsWith('attributes.') ? name.slice('attributes.'.length) : null;
      if (slug === null || !attributeSlugs.has(slug.toLowerCase())) {
        throw invalidField(field, `reads ${JSON.stringify(name)}: a condition reads "attributes.<slug>" of an attribute of the organization`, name);
      }
      return;
    }
    walk(argument, depth + 1);
  };
  walk(query, 0);
  return query as SegmentQuery;
}

/** A member's attribute values as a condition reads them (slugs in lower case). */
export type MemberValues = Record<string, string | number | string[]>;

/** Whether the member's values satisfy the condition (anything truthy, as JsonLogic has it). */
export function inSegment(query: SegmentQuery, values: MemberValues): boolean {
  return Boolean(jsonLogic.apply(lowerVars(query) as jsonLogic.RulesLogic, { attributes: values }));
}

/** `var` names with their slug in lower case (slugs are case-insensitive). */
function lowerVars(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(lowerVars);
  if (node === null || typeof node !== 'object') return node;
  const [operator, argument] = Object.entries(node)[0]!;
  if (operator === 'var') {
    const lower = (name: unknown) => (typeof name === 'string' ? name.toLowerCase() : name);
    return { var: Array.isArray(argument) ? [lower(argument[0]), ...argument.slice(1)] : lower(argument) };
  }
  return { [operator]: lowerVars(argument) };
}

/** Members' values from rows of (user, attribute slug and type, option value). */
export function memberValues(rows: readonly { userId: number; slug: string; type: string; value: string }[]): Map<number, MemberValues> {
  const byUser = new Map<number, MemberValues>();
  for (const row of rows) {
    const values = byUser.get(row.userId) ?? {};
    const slug = row.slug.toLowerCase();
    if (row.type === 'MULTI_SELECT') values[slug] = [...((values[slug] as string[] | undefined) ?? []), row.value];
    else values[slug] = row.type === 'NUMBER' ? Number(row.value) : row.value;
    byUser.set(row.userId, values);
  }
  return byUser;
}
