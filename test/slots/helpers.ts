import assert from 'node:assert/strict';
import type { ApiResponse, TestApp } from '../support/test-app.js';

export const SLOTS_VERSION = '2024-09-04';

export interface Host {
  userId: number;
  username: string;
  apiKey: string;
}

let counter = 0;

/** A user with a default Mon-Fri 09:00-17:00 schedule in `timeZone` (null: no schedule at all). */
export async function createHost(api: TestApp, timeZone: string | null, fields: Record<string, unknown> = {}): Promise<Host> {
  counter += 1;
  const username = `host-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 6)}`;
  const { user, apiKey } = await api.createUser({ ...(timeZone === null ? {} : { timeZone }), username, ...fields });
  return { userId: user.id, username, apiKey };
}

export async function createEventType(api: TestApp, host: Host, fields: Record<string, unknown> = {}): Promise<any> {
  const response = await api.request('POST', '/v2/event-types', {
    key: host.apiKey,
    version: '2024-06-14',
    body: { title: 'Call', slug: `call-${Math.random().toString(36).slice(2, 8)}`, lengthInMinutes: 60, minimumBookingNotice: 0, ...fields },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

export async function getSlots(api: TestApp, query: Record<string, string | number>, options: { key?: string; version?: string | null } = {}): Promise<ApiResponse> {
  const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]));
  const version = options.version === undefined ? SLOTS_VERSION : options.version;
  return api.request('GET', `/v2/slots?${search}`, { ...(version ? { version } : {}), ...(options.key ? { key: options.key } : {}) });
}

/** Slots of a 200 answer, failing the test otherwise. */
export async function slotsOf(api: TestApp, query: Record<string, string | number>): Promise<Record<string, any[]>> {
  const response = await getSlots(api, query);
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.status, 'success');
  return response.body.data;
}

/** Every start as an instant (epoch ms), in order. */
export const instants = (data: Record<string, any[]>) => Object.values(data).flat().map((slot) => Date.parse(slot.start));
export const startsOf = (data: Record<string, any[]>) => Object.values(data).flat().map((slot) => slot.start as string);

export function assertError(response: ApiResponse, status: number, code: string, message?: string | RegExp): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.status, 'error');
  assert.equal(response.body.error.code, code, response.text);
  if (typeof message === 'string') assert.equal(response.body.error.message, message);
  else if (message) assert.match(response.body.error.message, message);
}

/** A 400 naming `field` in details.errors. */
export function assertNamesField(response: ApiResponse, field: string): void {
  assertError(response, 400, 'BadRequestException');
  const named = (response.body.error.details?.errors ?? []).map((error: { property: string }) => error.property);
  assert.ok(named.includes(field), `expected ${field} to be named, got ${JSON.stringify(named)}: ${response.text}`);
}
