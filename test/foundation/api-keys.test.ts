import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { apiKeys } from '../../src/db/schema.js';
import { hashApiKey } from '../../src/lib/crypto.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const DAY_MS = 86_400_000;

describe('POST /v2/api-keys/refresh', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  const expiryOf = async (key: string) =>
    (await api.runtime.ctx.database.db.select({ expiresAt: apiKeys.expiresAt }).from(apiKeys).where(eq(apiKeys.hashedKey, hashApiKey(key))))[0]?.expiresAt;

  test('returns a new key (200) and the old one stops working at once, even when cached', async () => {
    const { apiKey: oldKey } = await api.createUser();
    assert.equal((await api.request('GET', '/v2/me', { key: oldKey })).status, 200); // now cached
    const response = await api.request('POST', '/v2/api-keys/refresh', { key: oldKey });
    assert.equal(response.status, 200);
    const newKey = response.body.data.apiKey;
    assert.match(newKey, /^svc_[0-9a-f]{32}$/);
    assert.notEqual(newKey, oldKey);
    assert.equal((await api.request('GET', '/v2/me', { key: oldKey })).status, 401);
    assert.equal((await api.request('GET', '/v2/me', { key: newKey })).status, 200);
    const expiresAt = await expiryOf(newKey);
    assert.ok(expiresAt, 'defaults to 30 days');
    assert.ok(Math.abs(expiresAt.getTime() - (Date.now() + 30 * DAY_MS)) < 60_000);
  });

  test('apiKeyDaysValid and apiKeyNeverExpires set the new expiry', async () => {
    const { apiKey } = await api.createUser();
    const sevenDays = (await api.request('POST', '/v2/api-keys/refresh', { key: apiKey, body: { apiKeyDaysValid: 7 } })).body.data.apiKey;
    const expiresAt = await expiryOf(sevenDays);
    assert.ok(expiresAt && Math.abs(expiresAt.getTime() - (Date.now() + 7 * DAY_MS)) < 60_000);
    const forever = (await api.request('POST', '/v2/api-keys/refresh', { key: sevenDays, body: { apiKeyNeverExpires: true } })).body.data.apiKey;
    assert.equal(await expiryOf(forever), null);
  });

  test('apiKeyDaysValid below 1 is a 400 naming the field, and the key is kept', async () => {
    const { apiKey } = await api.createUser();
    const response = await api.request('POST', '/v2/api-keys/refresh', { key: apiKey, body: { apiKeyDaysValid: 0 } });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.details.errors[0].property, 'apiKeyDaysValid');
    assert.equal((await api.request('GET', '/v2/me', { key: apiKey })).status, 200);
  });

  // The reference's ApiKeysService.createApiKey (used by refresh) refuses the pair before touching the key.
  test('apiKeyDaysValid together with apiKeyNeverExpires: true is a 400, and the key is kept', async () => {
    const { apiKey } = await api.createUser();
    const response = await api.request('POST', '/v2/api-keys/refresh', { key: apiKey, body: { apiKeyDaysValid: 10, apiKeyNeverExpires: true } });
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.error.code, 'BadRequestException');
    assert.equal(response.body.error.message, 'Cannot set both apiKeyDaysValid and apiKeyNeverExpires. It has to be either or none of them.');
    assert.equal((await api.request('GET', '/v2/me', { key: apiKey })).status, 200);
    assert.equal((await api.request('POST', '/v2/api-keys/refresh', { key: apiKey, body: { apiKeyDaysValid: 10, apiKeyNeverExpires: false } })).status, 200);
  });

  test('apiKeyDaysValid is at most 36500 (100 years): more is a 400 naming the field, never a 500, and the key is kept', async () => {
    const { apiKey } = await api.createUser();
    for (const days of [36_501, 3_000_000, 2_147_483_647]) {
      const response = await api.request('POST', '/v2/api-keys/refresh', { key: apiKey, body: { apiKeyDaysValid: days } });
      assert.equal(response.status, 400, `${days}: ${response.text}`);
      assert.equal(response.body.error.details.errors[0].property, 'apiKeyDaysValid');
    }
    assert.equal((await api.request('GET', '/v2/me', { key: apiKey })).status, 200);
    const longest = (await api.request('POST', '/v2/api-keys/refresh', { key: apiKey, body: { apiKeyDaysValid: 36_500 } })).body.data.apiKey;
    const expiresAt = await expiryOf(longest);
    assert.ok(expiresAt && Math.abs(expiresAt.getTime() - (Date.now() + 36_500 * DAY_MS)) < 60_000);
  });

  test('a refreshed key cannot be refreshed twice', async () => {
    const { apiKey } = await api.createUser();
    assert.equal((await api.request('POST', '/v2/api-keys/refresh', { key: apiKey })).status, 200);
    assert.equal((await api.request('POST', '/v2/api-keys/refresh', { key: apiKey })).status, 401);
  });
});
