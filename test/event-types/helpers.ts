import assert from 'node:assert/strict';
import type { ApiResponse, TestApp } from '../support/test-app.js';

export const V = '2024-06-14';

/** The smallest valid create body; `fields` are added to (or override) it. */
export function body(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { title: 'Intro call', slug: `intro-${Math.random().toString(36).slice(2, 8)}`, lengthInMinutes: 30, ...fields };
}

export async function create(api: TestApp, key: string, fields: Record<string, unknown> = {}): Promise<ApiResponse> {
  return api.request('POST', '/v2/event-types', { key, version: V, body: body(fields) });
}

/** Creates an event type and returns its output, failing the test on anything but 201. */
export async function created(api: TestApp, key: string, fields: Record<string, unknown> = {}): Promise<any> {
  const response = await create(api, key, fields);
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

export async function read(api: TestApp, key: string, id: number): Promise<any> {
  const response = await api.request('GET', `/v2/event-types/${id}`, { key, version: V });
  assert.equal(response.status, 200, response.text);
  return response.body.data;
}

export async function patch(api: TestApp, key: string, id: number, fields: Record<string, unknown>): Promise<ApiResponse> {
  return api.request('PATCH', `/v2/event-types/${id}`, { key, version: V, body: fields });
}

/** Asserts a 400 whose validation details name `field`. */
export function assertNamesField(response: ApiResponse, field: string, what: string): void {
  assert.equal(response.status, 400, `${what}: expected 400, got ${response.status} ${response.text}`);
  assert.equal(response.body.error.code, 'BadRequestException', what);
  const properties = (response.body.error.details.errors ?? []).map((error: { property: string }) => error.property);
  assert.ok(properties.includes(field), `${what}: should name ${field}, named ${JSON.stringify(properties)}`);
}
