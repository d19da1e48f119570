// Conditions stored as data: JsonLogic (jsonlogic.com), evaluated by json-logic-js. svc accepts a small
// set of operators (comparison, membership, logic, `if`, `var`) and checks every `var` against the names
// the condition may read, so a stored condition can neither call methods nor read what it should not.
import jsonLogic from 'json-logic-js';
import { invalidField } from './errors.js';

const OPERATORS = new Set(['var', 'and', 'or', '!', '!!', '==', '!=', '===', '!==', '<', '<=', '>', '>=', 'in', 'if']);
const MAX_DEPTH = 20;
const MAX_BYTES = 10_000;

export type Logic = Record<string, unknown>;

const LOGIC_OPERATORS: readonly string[] = [...OPERATORS];

/**
 * `query` as a condition: an object of one allowed operator, nested at most 20 deep, at most 10,000
 * characters of JSON, whose every `var` is a name `readable` accepts. A 400 naming `field` otherwise;
 * `names` says what may be read (for the message).
 */
export function assertLogic(query: unknown, field: string, readable: (name: string) => boolean, names: string): Logic {
  if (query === null || typeof query !== 'object' || Array.isArray(query)) throw invalidField(field, 'must be a JsonLogic object, e.g. {"==": [{"var": "answers.country"}, "DE"]}', query);
  if (JSON.stringify(query).length > MAX_BYTES) throw invalidField(field, `must be at most ${MAX_BYTES} characters of JSON`);
  const walk = (node: unknown, depth: number): void => {
    if (depth > MAX_DEPTH) throw invalidField(field, `is nested more than ${MAX_DEPTH} levels deep`);
    if (Array.isArray(node)) return node.forEach((item) => walk(item, depth + 1));
    if (node === null || typeof node !== 'object') return;
    const keys = Object.keys(node);
    if (keys.length !== 1) throw invalidField(field, `has an object with ${keys.length} keys: each operation is an object of one operator`, node);
    const operator = keys[0]!;
    if (!OPERATORS.has(operator)) throw invalidField(field, `uses the operator "${operator}": allowed are ${LOGIC_OPERATORS.join(', ')}`, operator);
    const argument = (node as Record<string, unknown>)[operator];
    if (operator === 'var') {
      const name = Array.isArray(argument) ? argument[0] : argument;
      if (typeof name !== 'string' || !readable(name)) throw invalidField(field, `reads ${JSON.stringify(name)}: a condition reads ${names}`, name);
      return;
    }
    walk(argument, depth + 1);
  };
  walk(query, 0);
  return query as Logic;
}

/** `var` names as `rename` makes them (names compared case-insensitively are stored as given). */
function renameVars(node: unknown, rename: (name: string) => string): unknown {
  if (Array.isArray(node)) return node.map((item) => renameVars(item, rename));
  if (node === null || typeof node !== 'object') return node;
  const [operator, argument] = Object.entries(node)[0]!;
  if (operator === 'var') {
    const change = (name: unknown) => (typeof name === 'string' ? rename(name) : name);
    return { var: Array.isArray(argument) ? [change(argument[0]), ...argument.slice(1)] : change(argument) };
  }
  return { [operator]: renameVars(argument, rename) };
}

/** Whether `data` satisfies the condition (anything truthy, as JsonLogic has it); `rename` maps each `var` name first. */
export function satisfies(query: Logic, data: Record<string, unknown>, rename: (name: string) => string = (name) => name): boolean {
  return matcher(query, rename)(data);
}

/** The condition renamed once, to test many sets of data (a route's members) against it. */
export function matcher(query: Logic, rename: (name: string) => string = (name) => name): (data: Record<string, unknown>) => boolean {
  const renamed = renameVars(query, rename) as jsonLogic.RulesLogic;
  return (data) => Boolean(jsonLogic.apply(renamed, data));
}
