import { invalidField } from '../../lib/errors.js';

/**
 * `payloadTemplate`: text with `{{path}}` placeholders (`{{title}}`, `{{organizer.name}}`,
 * `{{attendees.0.name}}`). A template that is JSON once its placeholders are filled is sent as JSON,
 * each value escaped for where it stands (inside a string literal, or as a JSON value); any other
 * template is sent as form-encoded text with the values as they are, as the reference does.
 */
export interface PayloadTemplate {
  parts: (string | { path: string[]; inString: boolean })[];
  json: boolean;
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const PATH = /^[A-Za-z_$][\w$]*(\.[\w$]+)*$/;

/** Where each literal part leaves the JSON string state (scanning quotes and escapes). */
function endsInString(text: string, inString: boolean): boolean {
  let escaped = false;
  for (const char of text) {
    if (escaped) escaped = false;
    else if (char === '\\' && inString) escaped = true;
    else if (char === '"') inString = !inString;
  }
  return inString;
}

function assemble(parts: PayloadTemplate['parts'], fill: (path: string[], inString: boolean) => string): string {
  return parts.map((part) => (typeof part === 'string' ? part : fill(part.path, part.inString))).join('');
}

export function parsePayloadTemplate(source: string): PayloadTemplate {
  const parts: PayloadTemplate['parts'] = [];
  let inString = false;
  let last = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    const literal = source.slice(last, match.index);
    if (literal.includes('{{') || literal.includes('}}')) throw invalidField('payloadTemplate', 'has unbalanced {{ }} braces', source);
    inString = endsInString(literal, inString);
    parts.push(literal);
    const path = match[1]!;
    if (!PATH.test(path)) throw invalidField('payloadTemplate', `has a placeholder {{${path}}} that is not a dotted path like {{organizer.name}}`, source);
    parts.push({ path: path.split('.'), inString });
    last = match.index + match[0].length;
  }
  const rest = source.slice(last);
  if (rest.includes('{{') || rest.includes('}}')) throw invalidField('payloadTemplate', 'has unbalanced {{ }} braces', source);
  parts.push(rest);
  const trimmed = source.trim();
  let json = false;
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      JSON.parse(assemble(parts, (_path, inside) => (inside ? '' : 'null')));
      json = true;
    } catch {
      throw invalidField('payloadTemplate', 'looks like JSON but is not valid JSON once its placeholders are filled', source);
    }
  }
  return { parts, json };
}

/** Own properties only: `{{constructor}}` or `{{organizer.toString}}` must not reach the prototype chain. */
function lookup(data: unknown, path: string[]): unknown {
  let node = data;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

export function renderPayloadTemplate(template: PayloadTemplate, data: unknown): { body: string; contentType: string } {
  if (!template.json) {
    const body = assemble(template.parts, (path) => {
      const value = lookup(data, path);
      return value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    });
    return { body, contentType: 'application/x-www-form-urlencoded' };
  }
  const body = assemble(template.parts, (path, inString) => {
    const value = lookup(data, path);
    if (!inString) return JSON.stringify(value ?? null);
    const text = value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    return JSON.stringify(text).slice(1, -1);
  });
  return { body, contentType: 'application/json' };
}
