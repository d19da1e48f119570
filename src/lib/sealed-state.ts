// The `state` of a consent page svc sends a user to: sealed with svc's secret box, so the provider's
// callback can trust what svc put in it (whose connection it is, where to send the browser) and nothing
// else; named for its purpose (a calendar's state is no good for a conferencing app) and short-lived.
import { badRequest } from './errors.js';
import type { SecretBox } from './secrets.js';

/** How long a consent page's state stays good: the user has this long to consent. */
export const CONSENT_STATE_TTL_MS = 15 * 60_000;

export function sealState<T extends object>(secrets: SecretBox, purpose: string, fields: T, now = Date.now()): string {
  return secrets.seal(JSON.stringify({ ...fields, purpose, expiresAt: now + CONSENT_STATE_TTL_MS }));
}

/** The fields sealed for `purpose`; null when svc did not seal it, for another purpose, or it has expired. */
export function openState<T extends object>(secrets: SecretBox, purpose: string, sealed: string, now = Date.now()): T | null {
  let state: (T & { purpose?: unknown; expiresAt?: unknown }) | null = null;
  try {
    state = JSON.parse(secrets.open(sealed)) as T & { purpose?: unknown; expiresAt?: unknown };
  } catch {
    return null;
  }
  if (!state || state.purpose !== purpose || !(typeof state.expiresAt === 'number' && state.expiresAt > now)) return null;
  return state;
}

/** Where a consent flow sends the browser after (`returnTo`, `onErrorReturnTo`): an absolute http(s) address, or null. */
export function consentReturnAddress(value: string | undefined, field: string): string | null {
  if (value === undefined || value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badRequest('invalid_return_address', `${field} must be an absolute http(s) URL`, { property: field, value });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest('invalid_return_address', `${field} must be an absolute http(s) URL`, { property: field, value });
  return url.href;
}
