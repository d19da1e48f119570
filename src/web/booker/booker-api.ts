// The booking pages are a client of svc's own public API: every slot they show and every booking,
// reschedule and cancellation they make is a request to /v2 (in process, through Fastify's inject), on
// behalf of the visitor's address, so its rules apply unchanged: validation, notice and windows, limits,
// the rate limits and mail budgets of anonymous callers, idempotency keys.
import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/app.js';
import { API_VERSION_HEADER } from '../../http/api-version.js';

export const SLOTS_VERSION = '2024-09-04';
export const BOOKINGS_VERSION = '2024-08-13';

export interface ApiAnswer {
  status: number;
  body: any;
}

/** The API's error envelope, as the page words it: its message, and the reason when it has one. */
export const apiError = (answer: ApiAnswer): { message: string; reason: string | null; field: string | null } => ({
  message: String(answer.body?.error?.message ?? 'Something went wrong. Please try again.'),
  reason: typeof answer.body?.error?.details?.reason === 'string' ? answer.body.error.details.reason : null,
  field: typeof answer.body?.error?.details?.errors?.[0]?.property === 'string' ? answer.body.error.details.errors[0].property : null,
});

export interface ApiCall {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  version: string;
  idempotencyKey?: string | undefined;
}

export type BookerApi = (request: FastifyRequest, call: ApiCall) => Promise<ApiAnswer>;

export function bookerApi(app: App): BookerApi {
  return async (request, call) => {
    const query = Object.fromEntries(Object.entries(call.query ?? {}).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])));
    const response = await app.inject({
      method: call.method,
      url: call.path,
      query,
      remoteAddress: request.ip,
      headers: {
        [API_VERSION_HEADER]: call.version,
        accept: 'application/json',
        ...(request.headers['user-agent'] ? { 'user-agent': request.headers['user-agent'] } : {}),
        ...(call.idempotencyKey ? { 'idempotency-key': call.idempotencyKey } : {}),
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(call.body === undefined ? {} : { payload: JSON.stringify(call.body) }),
    });
    let body: unknown = null;
    try {
      body = response.body ? JSON.parse(response.body) : null;
    } catch {
      body = null;
    }
    return { status: response.statusCode, body };
  };
}
