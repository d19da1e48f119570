// The Origin check of managed users' access tokens, over HTTP: a browser sends `Origin` as
// scheme://host[:port] (never a path), so the origin of a listed redirect URI passes as well as the
// reference's exact and `*` wildcard matches; nothing else does.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOrganization } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createClient, createManagedUser } from './helpers.js';

const REDIRECT_URIS = [
  'https://app.example.com/cb',
  'http://localhost:3000/auth/callback?from=svc',
  'https://secure.example.com:443/return',
  'https://port.example.com:8443/x',
  'HTTPS://Upper.Example.COM/Path',
  'https://bücher.example/cb',
  'https://*.preview.example.com',
  'myapp://callback',
];

describe('platform access tokens: Origin', () => {
  let api: TestApp;
  let accessToken: string;

  before(async () => {
    api = await createTestApp();
    const { owner } = await createOrganization(api, { isPlatform: true });
    const client = await createClient(api, owner.apiKey, { redirectUris: REDIRECT_URIS });
    accessToken = (await createManagedUser(api, client)).accessToken;
  });
  after(() => api.close());

  const withOrigin = (origin: string) => api.request('GET', '/v2/me', { key: accessToken, headers: { origin } });

  test('the origin of a listed redirect URI passes (scheme, host, port; default port and case normalized, IDN as punycode)', async () => {
    for (const origin of ['https://app.example.com', 'http://localhost:3000', 'https://secure.example.com', 'https://port.example.com:8443', 'https://upper.example.com', 'https://xn--bcher-kva.example']) {
      const answer = await withOrigin(origin);
      assert.equal(answer.status, 200, `${origin}: ${answer.text}`);
    }
  });

  test('the reference\'s matches still pass: a whole redirect URI, and `*` wildcards', async () => {
    for (const origin of ['https://app.example.com/cb', 'https://pr-7.preview.example.com', 'myapp://callback']) {
      const answer = await withOrigin(origin);
      assert.equal(answer.status, 200, `${origin}: ${answer.text}`);
    }
  });

  test('nothing else passes: other hosts, schemes and ports, look-alikes, paths, null', async () => {
    for (const origin of [
      'https://app.example.com.evil.com',
      'https://evil.com',
      'https://evilapp.example.com',
      'https://app.example.co',
      'http://app.example.com',
      'https://app.example.com:8443',
      'https://port.example.com',
      'https://secure.example.com:8443',
      'http://localhost:3001',
      'http://localhost',
      'https://localhost:3000',
      'https://app.example.com@evil.com',
      'https://evil.com/https://app.example.com',
      'https://evil.com#https://app.example.com',
      'https://app.example.com/other',
      'null',
      'myapp://evil',
      'https://preview.example.com',
    ]) {
      const answer = await withOrigin(origin);
      assert.equal(answer.status, 401, origin);
      assert.equal(answer.body.error.details.reason, 'origin_not_allowed', origin);
    }
  });
});
