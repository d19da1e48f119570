import assert from 'node:assert/strict';
import type { ApiResponse, TestApp } from '../support/test-app.js';

export const BOOKINGS_VERSION = '2024-08-13';

export interface BookOptions {
  key?: string;
  headers?: Record<string, string>;
}

/** POST /v2/bookings with a default attendee; `fields` override the body. */
export function book(api: TestApp, fields: Record<string, unknown>, options: BookOptions = {}): Promise<ApiResponse> {
  const body = { attendee: { name: 'Bob Booker', email: 'bob@example.com', timeZone: 'Europe/Rome' }, ...fields };
  return api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body, ...(options.key ? { key: options.key } : {}), ...(options.headers ? { headers: options.headers } : {}) });
}

/** A booking that must succeed (201); returns its output. */
export async function booked(api: TestApp, fields: Record<string, unknown>, options: BookOptions = {}): Promise<any> {
  const response = await book(api, fields, options);
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

export function getBooking(api: TestApp, uid: string, key?: string): Promise<ApiResponse> {
  return api.request('GET', `/v2/bookings/${uid}`, { version: BOOKINGS_VERSION, ...(key ? { key } : {}) });
}
