// OAuth client names are shown to people (the consent page, the developer and review pages, mail), so
// control characters (line breaks...) and bidirectional controls (U+202E...) are refused with a 400
// naming `name`, on every way a name is written: third-party clients through the API and the developer
// page, platform clients on create and update.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertNamesField, createClient } from '../platform/helpers.js';
import { createOrganization, type Member } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createPasswordUser, csrfOf, logIn, WebClient } from './helpers.js';

const UNSAFE_NAMES: Record<string, string> = {
  'CR LF': 'Acme\r\nApproved by svc',
  LF: 'Acme\nSync',
  tab: 'Acme\tSync',
  'vertical tab': 'Acme\u000bSync',
  DEL: 'Acme\u007fSync',
  'C1 NEL': 'Acme\u0085Sync',
  'C1 CSI': 'Acme\u009b31mSync',
  'right-to-left override': 'Invoices \u202Efdp.exe',
  'left-to-right override': 'Acme\u202DSync',
  'right-to-left embedding': 'Acme\u202BSync',
  'left-to-right embedding': 'Acme\u202ASync',
  'pop directional formatting': 'Acme\u202CSync',
  'left-to-right mark': 'Acme\u200ESync',
  'right-to-left mark': 'Acme\u200FSync',
  'Arabic letter mark': 'Acme\u061CSync',
  'left-to-right isolate': 'Acme\u2066Sync',
  'right-to-left isolate': 'Acme\u2067Sync',
  'first strong isolate': 'Acme\u2068Sync',
  'pop directional isolate': 'Acme\u2069Sync',
};

/** Names with letters of any script, emoji (with zero-width joiners) and punctuation are fine. */
const FINE_NAMES = ["O'Brien & Söhne <Sync>", 'カレンダー助手', 'مساعد التقويم', 'Family 👨‍👩‍👧 Planner'];

describe('OAuth client names: no control or bidirectional-control characters', () => {
  let api: TestApp;
  let developer: Awaited<ReturnType<typeof createPasswordUser>>;
  let platformOwner: Member;

  before(async () => {
    api = await createTestApp();
    developer = await createPasswordUser(api);
    platformOwner = (await createOrganization(api, { isPlatform: true })).owner;
  });
  after(() => api.close());

  const registerThirdParty = (name: string) =>
    api.request('POST', '/v2/auth/oauth2/clients', { key: developer.apiKey, body: { name, redirectUris: ['https://app.example.com/cb'], scopes: ['PROFILE_READ'] } });
  const thirdPartyNames = async () => (await api.request('GET', '/v2/auth/oauth2/clients', { key: developer.apiKey })).body.data.map((client: { name: string }) => client.name);
  const platformNames = async () => (await api.request('GET', '/v2/oauth-clients', { key: platformOwner.apiKey })).body.data.map((client: { name: string }) => client.name);

  test('POST /v2/auth/oauth2/clients: 400 naming name, nothing registered; other scripts and emoji are fine', async () => {
    for (const [kind, name] of Object.entries(UNSAFE_NAMES)) {
      const refused = await registerThirdParty(name);
      assertNamesField(refused, 'name');
      assert.match(refused.body.error.message, /name must not contain control characters/, kind);
    }
    assert.deepEqual(await thirdPartyNames(), []);
    for (const name of FINE_NAMES) assert.equal((await registerThirdParty(name)).status, 201, name);
    assert.deepEqual((await thirdPartyNames()).sort(), [...FINE_NAMES].sort());
  });

  test('the developer page shows the problem on the page (400) and registers nothing', async () => {
    const web = new WebClient(api.baseUrl);
    await logIn(web, developer.email);
    const before = await thirdPartyNames();
    for (const [kind, name] of Object.entries({ 'right-to-left override': UNSAFE_NAMES['right-to-left override']!, 'CR LF': UNSAFE_NAMES['CR LF']!, 'C1 NEL': UNSAFE_NAMES['C1 NEL']! })) {
      const page = await web.get('/settings/developer');
      const answer = await web.post('/settings/developer/clients', { csrf: csrfOf(page.html), name, redirect_uris: 'https://page.example.com/cb', client_type: 'confidential', scopes: ['PROFILE_READ'] });
      assert.equal(answer.status, 400, kind);
      assert.match(answer.html, /role="alert"[^>]*>name must not contain control characters/, kind);
      assert.doesNotMatch(answer.html, /id="new-client-id"/, kind);
    }
    assert.deepEqual(await thirdPartyNames(), before);
  });

  test('POST /v2/oauth-clients: 400 naming name, nothing created', async () => {
    const before = await platformNames();
    for (const [kind, name] of Object.entries(UNSAFE_NAMES)) {
      const refused = await api.request('POST', '/v2/oauth-clients', { key: platformOwner.apiKey, body: { name, redirectUris: ['https://app.example.test'], permissions: ['*'] } });
      assertNamesField(refused, 'name');
      assert.match(refused.body.error.message, /name must not contain control characters/, kind);
    }
    assert.deepEqual(await platformNames(), before);
    for (const name of FINE_NAMES) await createClient(api, platformOwner.apiKey, { name });
  });

  test('PATCH /v2/oauth-clients/{clientId}: 400 naming name, the name unchanged', async () => {
    const { clientId } = await createClient(api, platformOwner.apiKey, { name: 'Acme Sync' });
    for (const [kind, name] of Object.entries(UNSAFE_NAMES)) {
      const refused = await api.request('PATCH', `/v2/oauth-clients/${clientId}`, { key: platformOwner.apiKey, body: { name } });
      assertNamesField(refused, 'name');
      assert.match(refused.body.error.message, /name must not contain control characters/, kind);
    }
    assert.equal((await api.request('GET', `/v2/oauth-clients/${clientId}`, { key: platformOwner.apiKey })).body.data.name, 'Acme Sync');
    const renamed = await api.request('PATCH', `/v2/oauth-clients/${clientId}`, { key: platformOwner.apiKey, body: { name: 'مساعد التقويم' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.data.name, 'مساعد التقويم');
  });
});
