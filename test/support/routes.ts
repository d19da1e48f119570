import assert from 'node:assert/strict';
import type { App } from '../../src/http/app.js';

export interface RouteEntry {
  method: string;
  /** The pattern as registered, e.g. `/v2/admin/users/:id`, `/docs/static/*`, `/*`. */
  url: string;
}

/**
 * Every (method, pattern) pair of an app, read from `printRoutes()`. Its default (common-prefix) tree
 * prints every radix node, so concatenating the node prefixes down a branch gives the full pattern.
 */
export function registeredRoutes(app: App): RouteEntry[] {
  const routes: RouteEntry[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes().split('\n')) {
    const branch = /[├└]── /.exec(line);
    if (!branch) continue;
    const depth = branch.index / 4;
    const match = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(branch.index + branch[0].length));
    assert.ok(match, `unexpected printRoutes line: ${line}`);
    const segment = match[1] === '(empty root node)' ? '' : match[1]!;
    const pattern = (depth > 0 ? stack[depth - 1]! : '') + segment;
    stack.length = depth;
    stack[depth] = pattern;
    if (match[2]) {
      const url = pattern.startsWith('/') ? pattern : `/${pattern}`;
      for (const method of match[2].split(', ')) routes.push({ method, url });
    }
  }
  return routes;
}
