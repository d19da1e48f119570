// The operations of the API document with their declared access (x-svc-access), and how to call one
// with identifiers that name nothing: what the permission and scope matrices walk.
import type { TestApp } from './test-app.js';

export interface DocumentedOperation {
  method: string;
  path: string;
  auth: 'required' | 'optional' | 'none';
  scope: string | null;
  credentials: string[];
  systemAdmin: boolean;
  /** An organization or team route's minimum role and the PBAC permissions that also let a member through. */
  tenant: { role: string; permissions: string[] } | null;
}

const MISSING = '999999';
const MISSING_UID = '00000000-0000-4000-8000-000000000000';

/** The version a route's area needs, so that no route answers for an older version. */
export function versionOf(path: string): string | undefined {
  if (path.startsWith('/v2/bookings')) return '2024-08-13';
  if (path.startsWith('/v2/schedules')) return '2024-06-11';
  if (path.startsWith('/v2/event-types')) return '2024-06-14';
  return undefined;
}

export const concretePath = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => (name.toLowerCase().includes('uid') ? MISSING_UID : MISSING));

export async function documentedOperations(api: TestApp): Promise<DocumentedOperation[]> {
  const document = (await api.request('GET', '/docs/openapi.json')).body;
  const operations: DocumentedOperation[] = [];
  for (const [path, methods] of Object.entries<any>(document.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const access = op['x-svc-access'];
      operations.push({
        method: method.toUpperCase(),
        path,
        auth: access?.auth ?? 'none',
        scope: access?.scope ?? null,
        credentials: access?.credentials ?? [],
        systemAdmin: access?.systemAdmin ?? false,
        tenant: access?.tenant ?? null,
      });
    }
  }
  return operations;
}

/** Calls an operation on identifiers that name nothing, so a call let through changes nothing (404 or 400). */
export function callOperation(api: TestApp, op: Pick<DocumentedOperation, 'method' | 'path'>, auth: { key?: string; headers?: Record<string, string> }) {
  const version = versionOf(op.path);
  const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : {};
  return api.request(op.method, concretePath(op.path), { ...auth, ...(version ? { version } : {}), ...(body ? { body } : {}) });
}
