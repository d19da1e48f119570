// Platform clients and managed users for tests, made through the API as a platform customer would.
import assert from 'node:assert/strict';
import type { TestApp } from '../support/test-app.js';

export { assertNamesField } from '../slots/helpers.js';

export const platformHeaders = (clientId: string, secret: string) => ({ 'x-svc-client-id': clientId, 'x-svc-secret-key': secret });

let counter = 0;

/** A client of the platform organization `adminKey` administers (all permissions unless told). */
export async function createClient(api: TestApp, adminKey: string, body: Record<string, unknown> = {}): Promise<{ clientId: string; clientSecret: string }> {
  const response = await api.request('POST', '/v2/oauth-clients', {
    key: adminKey,
    body: { name: `Client ${++counter}`, redirectUris: ['https://app.example.test'], permissions: ['*'], ...body },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

export interface ManagedUser {
  user: { id: number; email: string; username: string; timeZone: string; defaultScheduleId: number | null };
  accessToken: string;
  refreshToken: string;
  accessTokenExpiresAt: number;
  refreshTokenExpiresAt: number;
}

/** A managed user of the client, with its first token pair. */
export async function createManagedUser(api: TestApp, client: { clientId: string; clientSecret: string }, body: Record<string, unknown> = {}): Promise<ManagedUser> {
  const response = await api.request('POST', `/v2/oauth-clients/${client.clientId}/users`, {
    headers: { 'x-svc-secret-key': client.clientSecret },
    body: { email: `managed-${process.pid}-${++counter}@example.com`, name: `Managed ${counter}`, ...body },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}
