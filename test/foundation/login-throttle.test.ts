// Password guessing on the web login (POST /auth/login): failures are counted per account (the email as
// typed, trimmed and lowercased, whether or not it exists) and per client IP, in the database. Past the
// free failures each attempt waits, the wait doubling with each further failure; a waiting attempt is
// refused without looking at the password (the right one too), with one page for known and unknown emails.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { csrfOf, createPasswordUser, PASSWORD, WebClient } from '../oauth/helpers.js';
import { backend, createPeerApp, createTestApp, type TestApp } from '../support/test-app.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WRONG = 'not the password';
const NOT_RIGHT = 'The email or password is not right.';

let counter = 0;
const unknownEmail = () => `nobody-${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;

interface LoginAnswer {
  status: number;
  html: string;
  retryAfter: string | null;
}

/** One login from a fresh browser session: the form, then its POST. */
async function attempt(api: TestApp, email: string, password: string): Promise<LoginAnswer> {
  const web = new WebClient(api.baseUrl);
  const page = await web.get('/auth/login');
  const answer = await web.post('/auth/login', { csrf: csrfOf(page.html), email, password, next: '/settings/developer' });
  return { status: answer.status, html: answer.html, retryAfter: answer.headers.get('retry-after') };
}

/** The same, over a connection from another loopback address (another client IP). */
async function attemptFrom(api: TestApp, localAddress: string, email: string, password: string): Promise<LoginAnswer> {
  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const request = http.request(`${api.baseUrl}${path}`, { method, headers, localAddress }, (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text }));
      });
      request.on('error', reject);
      request.end(body);
    });
  const page = await send('GET', '/auth/login', {});
  const cookie = (page.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]).join('; ');
  const form = new URLSearchParams({ csrf: csrfOf(page.text), email, password, next: '/settings/developer' }).toString();
  const answer = await send('POST', '/auth/login', { cookie, 'content-type': 'application/x-www-form-urlencoded' }, form);
  const retryAfter = answer.headers['retry-after'];
  return { status: answer.status, html: answer.text, retryAfter: typeof retryAfter === 'string' ? retryAfter : null };
}

/** A page with what differs between two sessions and two typed emails taken out. */
const pageShape = (html: string, email: string) => html.replace(/name="csrf" value="[^"]+"/g, 'name="csrf" value=""').replaceAll(email, '<email>');

async function failTimes(api: TestApp, email: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const answer = await attempt(api, email, WRONG);
    assert.equal(answer.status, 401, `failure ${i + 1} is checked: ${answer.html.slice(0, 300)}`);
    assert.ok(answer.html.includes(NOT_RIGHT));
  }
}

function assertWaiting(answer: LoginAnswer, minutes: number): void {
  assert.equal(answer.status, 429, answer.html.slice(0, 400));
  assert.ok(answer.html.includes(`Too many attempts; try again in ${minutes === 1 ? '1 minute' : `${minutes} minutes`}.`), answer.html);
  assert.ok(!answer.html.includes(NOT_RIGHT), 'the page does not say whether the password was right');
}

describe('login throttling (POST /auth/login)', () => {
  let api: TestApp;
  let now = Date.parse('2031-05-05T09:00:00.000Z');
  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
  });
  after(() => api.close());

  // Each test starts a day later: every earlier failure of the file (all from 127.0.0.1) is forgotten.
  const nextDay = () => (now += DAY);

  test('after 5 failures an account waits: the right password is refused too, with the page an unknown email gets', async () => {
    nextDay();
    const { email } = await createPasswordUser(api);
    const unknown = unknownEmail();
    await failTimes(api, email, 5);
    await failTimes(api, unknown, 5);

    const known = await attempt(api, email, PASSWORD);
    assertWaiting(known, 1);
    assert.equal(known.retryAfter, '60');
    const nobody = await attempt(api, unknown, 'any password');
    assertWaiting(nobody, 1);
    assert.equal(nobody.retryAfter, '60');
    assert.equal(pageShape(known.html, email), pageShape(nobody.html, unknown), 'the same page for an account that exists and one that does not');

    // The email as typed is trimmed and lowercased: another spelling is the same account.
    assertWaiting(await attempt(api, `  ${email.toUpperCase()}  `, PASSWORD), 1);
    // Another client IP is refused too: the account's limit is the account's, wherever guesses come from.
    assertWaiting(await attemptFrom(api, '127.0.0.2', email, PASSWORD), 1);
  });

  test('the wait ends: one more failure doubles it, and once it is over the right password gets in', async () => {
    nextDay();
    const { email } = await createPasswordUser(api);
    await failTimes(api, email, 5);
    now += 59_000;
    assertWaiting(await attempt(api, email, PASSWORD), 1);
    // Refused attempts did not count: the wait still ends a minute after the fifth failure.
    now += 1_000;
    await failTimes(api, email, 1);
    assertWaiting(await attempt(api, email, PASSWORD), 2);
    now += 2 * MINUTE - 1_000;
    assertWaiting(await attempt(api, email, PASSWORD), 1);
    now += 1_000;
    assert.equal((await attempt(api, email, PASSWORD)).status, 303, 'logged in once the wait is over');
  });

  test('a successful login clears the account\'s failures', async () => {
    nextDay();
    const { email } = await createPasswordUser(api);
    await failTimes(api, email, 4);
    assert.equal((await attempt(api, email, PASSWORD)).status, 303);
    await failTimes(api, email, 5);
    assertWaiting(await attempt(api, email, PASSWORD), 1);
  });

  test('the IP limit: 20 failures from one address over many accounts, then every account waits there, not elsewhere', async () => {
    nextDay();
    const { email } = await createPasswordUser(api);
    // 4 failures for each of 5 accounts: none reaches its own limit.
    for (let account = 0; account < 5; account++) await failTimes(api, unknownEmail(), 4);
    const fromThere = await attempt(api, email, PASSWORD);
    assertWaiting(fromThere, 1);
    const unknown = unknownEmail();
    const nobody = await attempt(api, unknown, WRONG);
    assertWaiting(nobody, 1);
    assert.equal(pageShape(fromThere.html, email), pageShape(nobody.html, unknown));
    assert.equal((await attemptFrom(api, '127.0.0.2', email, PASSWORD)).status, 303, 'another address is not limited');
    now += MINUTE;
    assert.equal((await attempt(api, email, PASSWORD)).status, 303, 'the address waits a minute');
  });

  test('an attacker who tries again the moment each wait ends makes at most 10 guesses in any hour', async () => {
    nextDay();
    const { email } = await createPasswordUser(api);
    const start = now;
    const guesses: number[] = [];
    // Each checked guess takes the attacker a second; more than 100 guesses would already break ASVS 2.2.1's bound.
    while (now < start + DAY && guesses.length <= 100) {
      const answer = await attempt(api, email, WRONG);
      if (answer.status === 401) {
        guesses.push(now);
        now += 1000;
      } else {
        assert.equal(answer.status, 429, answer.html.slice(0, 300));
        now += Number(answer.retryAfter) * 1000;
      }
    }
    const mostInAnHour = Math.max(...guesses.map((from) => guesses.filter((at) => at >= from && at < from + HOUR).length));
    // 5 free failures, then waits of 1, 2, 4, 8 and 16 minutes (the 10th guess at 31 minutes, the 11th at 63);
    // past that the wait is an hour.
    assert.equal(mostInAnHour, 10);
    assert.equal(guesses.length, 33, 'in the first 24 hours: 10 in the first hour, then one an hour');
  });
});

// PGlite is one process by construction; the cross-process cases need PostgreSQL.
describe('login throttling across processes sharing one PostgreSQL', { skip: backend !== 'postgres' && 'needs PostgreSQL (PGlite is single-process)' }, () => {
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    a = await createTestApp();
    b = await createPeerApp(a);
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  test("a second process sees the first one's failures", async () => {
    const { email } = await createPasswordUser(a);
    await failTimes(a, email, 5);
    assertWaiting(await attempt(b, email, PASSWORD), 1);
  });

  test('guesses sent all at once to both processes: exactly 5 are checked, the rest wait', async () => {
    const email = unknownEmail();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(i % 2 === 0 ? a : b, email, WRONG)));
    assert.deepEqual(
      answers.map((answer) => answer.status).sort(),
      [...Array<number>(5).fill(401), ...Array<number>(7).fill(429)],
    );
  });
});
