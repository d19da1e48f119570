// The login page's `next` (where a logged-in user goes) over real HTTP: only a path of this site is
// followed, on GET (already logged in) and POST (logging in); anything a browser could read as another
// origin (`/\t/evil` is `//evil` once the tab is stripped, `/\evil` is `//evil`) falls back to the
// developer page. Each Location is resolved with the WHATWG URL parser, as a browser resolves it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createPasswordUser, csrfOf, PASSWORD, WebClient } from './helpers.js';

const DEFAULT_PAGE = '/settings/developer';

/** `next` values as the server receives them (decoded), each an attempt to leave the site. */
const HOSTILE: string[] = [
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r/evil.example',
  '/\r\n/evil.example',
  '\t//evil.example',
  '/\u0001/evil.example',
  '/\u007f/evil.example',
  '/\u0085/evil.example',
  '/\u2028/evil.example',
  '/\\evil.example',
  '\\\\evil.example',
  '/\\/evil.example',
  '/x\\..\\\\evil.example',
  'https://evil.example',
  'https://evil.example/settings/developer',
  'http:evil.example',
  '//evil.example',
  '///evil.example',
  '/.//evil.example',
  '/settings//evil.example',
  'javascript:alert(document.domain)',
  ' //evil.example',
  '  /\\evil.example',
  ' /settings/developer',
  'evil.example',
  '',
];

/** `next` as written in a query string (not yet decoded), for the GET page. */
const HOSTILE_RAW: string[] = ['/%09/evil.example', '/%0a/evil.example', '/%0d/evil.example', '/%5Cevil.example', '%5C%5Cevil.example', '/%2F%2Fevil.example', '%2F%2Fevil.example', '%20%2F%2Fevil.example', '/%C2%85/evil.example', '/%E2%80%A8/evil.example'];

/** Paths of this site: kept as sent. */
const SAME_SITE: string[] = [
  '/settings/developer',
  '/settings/admin/oauth-clients',
  `/auth/oauth2/authorize?${new URLSearchParams({ client_id: 'oa2_x', redirect_uri: 'https://app.example.com/cb', state: 's', scope: 'PROFILE_READ BOOKING_READ' })}`,
  '/settings/developer#register',
];

describe('login next: this site only', () => {
  let api: TestApp;
  let email: string;
  let origin: string;

  before(async () => {
    api = await createTestApp();
    email = (await createPasswordUser(api)).email;
    origin = new URL(api.baseUrl).origin;
  });
  after(() => api.close());

  /** Where a browser goes with this Location (resolved against the page that answered it). */
  const landing = (location: string | null) => {
    assert.ok(location, 'a Location header');
    return new URL(location, `${api.baseUrl}/auth/login`);
  };

  async function loggedInClient(): Promise<WebClient> {
    const web = new WebClient(api.baseUrl);
    const page = await web.get('/auth/login');
    const done = await web.post('/auth/login', { csrf: csrfOf(page.html), email, password: PASSWORD });
    assert.equal(done.status, 303, done.html);
    return web;
  }

  test('POST /auth/login: every hostile next lands on the developer page of this site', async () => {
    for (const next of HOSTILE) {
      const web = new WebClient(api.baseUrl);
      const page = await web.get('/auth/login');
      const done = await web.post('/auth/login', { csrf: csrfOf(page.html), email, password: PASSWORD, next });
      assert.equal(done.status, 303, JSON.stringify(next));
      assert.equal(landing(done.location).origin, origin, `${JSON.stringify(next)} -> ${JSON.stringify(done.location)}`);
      assert.equal(done.location, DEFAULT_PAGE, JSON.stringify(next));
    }
  });

  test('GET /auth/login while logged in: every hostile next, decoded or raw in the query, redirects within this site', async () => {
    const web = await loggedInClient();
    const queries = [...HOSTILE.map((next) => encodeURIComponent(next)), ...HOSTILE_RAW];
    for (const query of queries) {
      const answer = await web.get(`/auth/login?next=${query}`);
      assert.equal(answer.status, 303, query);
      assert.equal(landing(answer.location).origin, origin, `${query} -> ${JSON.stringify(answer.location)}`);
      assert.equal(answer.location, DEFAULT_PAGE, query);
    }
  });

  test('a NUL in next is refused before the page (400, no Location), as in any request', async () => {
    const web = await loggedInClient();
    const answer = await web.get('/auth/login?next=/%00/evil.example');
    assert.equal(answer.status, 400);
    assert.equal(answer.location, null);
  });

  test('GET /auth/login while logged out: the form carries the developer page, not the hostile next', async () => {
    const visitor = new WebClient(api.baseUrl);
    for (const query of ['/%09/evil.example', '/%5Cevil.example', encodeURIComponent('//evil.example'), encodeURIComponent('https://evil.example')]) {
      const page = await visitor.get(`/auth/login?next=${query}`);
      assert.equal(page.status, 200, query);
      assert.match(page.html, /<input type="hidden" name="next" value="\/settings\/developer">/, query);
    }
  });

  test('paths of this site are followed as sent, on GET and POST', async () => {
    const web = await loggedInClient();
    for (const next of SAME_SITE) {
      const answer = await web.get(`/auth/login?next=${encodeURIComponent(next)}`);
      assert.equal(answer.location, next);
      const visitor = new WebClient(api.baseUrl);
      const page = await visitor.get(`/auth/login?next=${encodeURIComponent(next)}`);
      const done = await visitor.post('/auth/login', { csrf: csrfOf(page.html), email, password: PASSWORD, next });
      assert.equal(done.location, next);
      assert.equal(landing(done.location).origin, origin);
    }
  });
});
