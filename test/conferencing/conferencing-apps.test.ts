// Conferencing apps of a user over HTTP: Google Meet installed on a Google Calendar connection, Zoom and
// Microsoft Teams through their consent pages against local servers that implement the providers'
// documented OAuth (test/support/fake-zoom.ts, fake-microsoft.ts), the default app, disconnecting; the
// tokens sealed and never returned; another user's apps out of reach.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { FakeGoogle } from '../support/fake-google.js';
import type { FakeMicrosoft } from '../support/fake-microsoft.js';
import type { FakeZoom } from '../support/fake-zoom.js';
import { type ConferencingProviders, startConferencingProviders } from '../support/conferencing-providers.js';
import { connectOAuthCalendar } from '../support/oauth-calendar-connect.js';
import { createOrganization, createOrgMember } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createHost, type Host } from '../slots/helpers.js';

const APP_URL = 'https://svc.example.test';
const DONE = 'https://app.example.test/conferencing/done';
const FAILED = 'https://app.example.test/conferencing/failed';

describe('conferencing apps of a user', () => {
  let google: FakeGoogle;
  let microsoft: FakeMicrosoft;
  let zoom: FakeZoom;
  let providers: ConferencingProviders;
  let api: TestApp;
  let host: Host;
  let stranger: Host;

  before(async () => {
    providers = await startConferencingProviders(APP_URL);
    ({ google, microsoft, zoom } = providers);
    api = await createTestApp(providers.env);
    host = await createHost(api, 'Europe/London');
    stranger = await createHost(api, 'Europe/London');
  });
  after(async () => {
    await api?.close();
    await providers?.close();
  });

  const list = async (key: string) => {
    const answer = await api.request('GET', '/v2/conferencing', { key });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.data as any[];
  };

  /** The consent round trip a browser makes: svc's auth URL, the provider's page, its redirect to svc's callback. */
  async function consent(app: 'zoom' | 'msteams', key: string, query = `returnTo=${encodeURIComponent(DONE)}&onErrorReturnTo=${encodeURIComponent(FAILED)}`) {
    const answer = await api.request('GET', `/v2/conferencing/${app}/oauth/auth-url?${query}`, { key });
    assert.equal(answer.status, 200, answer.text);
    const page = await fetch(answer.body.data.url, { redirect: 'manual' });
    assert.equal(page.status, 302, await page.text());
    const callback = new URL(page.headers.get('location')!);
    assert.equal(`${callback.origin}${callback.pathname}`, `${APP_URL}/v2/conferencing/${app}/oauth/callback`);
    return { authUrl: new URL(answer.body.data.url), callback, back: () => fetch(`${api.baseUrl}${callback.pathname}${callback.search}`, { redirect: 'manual' }) };
  }

  test('a new user has none installed and the built-in video as default (no data)', async () => {
    assert.deepEqual(await list(host.apiKey), []);
    const current = await api.request('GET', '/v2/conferencing/default', { key: host.apiKey });
    assert.equal(current.status, 200, current.text);
    assert.deepEqual(current.body, { status: 'success' });
  });

  test('Google Meet needs a working Google Calendar connection, then installs once', async () => {
    const early = await api.request('POST', '/v2/conferencing/google-meet/connect', { key: host.apiKey });
    assert.equal(early.status, 400, early.text);
    assert.equal(early.body.error.message, 'Google Meet requires a Google Calendar connection.');
    const other = await api.request('POST', '/v2/conferencing/zoom/connect', { key: host.apiKey });
    assert.equal(other.status, 400);
    assert.equal(other.body.error.message, 'Invalid conferencing app. Available apps: GOOGLE_MEET.');

    const { saved } = await connectOAuthCalendar(api, APP_URL, 'google', host.apiKey);
    assert.equal(saved.status, 301, await saved.text());
    const installed = await api.request('POST', '/v2/conferencing/google-meet/connect', { key: host.apiKey });
    assert.equal(installed.status, 200, installed.text);
    assert.deepEqual(installed.body.data, { id: installed.body.data.id, type: 'google_video', userId: host.userId, teamId: null, appId: 'google-meet', invalid: false });
    const again = await api.request('POST', '/v2/conferencing/google-meet/connect', { key: host.apiKey });
    assert.equal(again.status, 400);
    assert.equal(again.body.error.message, 'Google Meet is already connected for this user.');
    assert.deepEqual(await list(host.apiKey), [installed.body.data]);
    assert.deepEqual(await list(stranger.apiKey), [], "another user's apps are not listed");

    // A Google Calendar connection the provider refused no longer carries Meet.
    const { saved: strangerSaved } = await connectOAuthCalendar(api, APP_URL, 'google', stranger.apiKey);
    assert.equal(strangerSaved.status, 301);
    await api.runtime.ctx.database.db.execute(sql`update calendar_connections set invalid = true where user_id = ${stranger.userId}`);
    const broken = await api.request('POST', '/v2/conferencing/google-meet/connect', { key: stranger.apiKey });
    assert.equal(broken.status, 400);
    assert.equal(broken.body.error.message, 'Google Meet requires a valid Google Calendar connection. Please reconnect Google Calendar.');
  });

  test('Zoom: the consent page with a sealed state, the callback stores the tokens sealed and sends the browser to returnTo', async () => {
    const { authUrl, back } = await consent('zoom', host.apiKey);
    assert.equal(authUrl.searchParams.get('client_id'), 'svc-zoom-client');
    assert.equal(authUrl.searchParams.get('redirect_uri'), `${APP_URL}/v2/conferencing/zoom/oauth/callback`);
    const state = authUrl.searchParams.get('state')!;
    assert.match(state, /^v1:/, 'sealed by svc');
    assert.ok(!state.includes(host.apiKey) && !state.includes('app.example.test') && !state.includes('returnTo'), 'the state is sealed: no key or address readable in it');
    const answer = await back();
    assert.equal(answer.status, 301, await answer.text());
    assert.equal(answer.headers.get('location'), DONE);
    assert.deepEqual(zoom.tokenGrants.slice(-1), ['authorization_code']);
    const installed = (await list(host.apiKey)).find((app) => app.type === 'zoom_video');
    assert.deepEqual(installed, { id: installed?.id, type: 'zoom_video', userId: host.userId, teamId: null, appId: 'zoom', invalid: false });
    const stored = (await api.runtime.ctx.database.db.execute(sql`select credentials_sealed, account_email from conferencing_apps where user_id = ${host.userId} and type = 'zoom_video'`)) as unknown as { rows: { credentials_sealed: string; account_email: string }[] };
    assert.match(stored.rows[0]!.credentials_sealed, /^v1:/);
    assert.ok(!stored.rows[0]!.credentials_sealed.includes('eyJ'), 'tokens are sealed');
    assert.equal(stored.rows[0]!.account_email, 'ada@zoom.example');
    // The same consent page's code cannot be used twice, and the state says where a failure goes.
    const replay = await back();
    assert.equal(replay.status, 301);
    assert.equal(replay.headers.get('location'), FAILED);
    assert.equal((await list(host.apiKey)).filter((app) => app.type === 'zoom_video').length, 1);
  });

  test('Microsoft Teams: consent for online meetings, the account read from Graph', async () => {
    const { authUrl, back } = await consent('msteams', host.apiKey);
    assert.deepEqual(authUrl.searchParams.get('scope')!.split(' ').sort(), ['OnlineMeetings.ReadWrite', 'User.Read', 'offline_access']);
    const answer = await back();
    assert.equal(answer.status, 301, await answer.text());
    assert.equal(answer.headers.get('location'), DONE);
    const stored = (await api.runtime.ctx.database.db.execute(sql`select account_email from conferencing_apps where user_id = ${host.userId} and type = 'office365_video'`)) as unknown as { rows: { account_email: string }[] };
    assert.equal(stored.rows[0]?.account_email, 'ada@outlook.example');
    const listed = await api.request('GET', '/v2/conferencing', { key: host.apiKey });
    assert.deepEqual(listed.body.data.map((app: any) => app.type).sort(), ['google_video', 'office365_video', 'zoom_video']);
    for (const secret of ['zoom-client-secret', 'microsoft-client-secret', 'eyJ']) assert.ok(!listed.text.includes(secret), `no token or secret in the list (${secret})`);
  });

  test('callback failures: a provider error or refusal goes to onErrorReturnTo; a state svc did not seal is a 400; no returnTo answers the app', async () => {
    const denied = await consent('zoom', stranger.apiKey);
    const deniedAnswer = await fetch(`${api.baseUrl}${denied.callback.pathname}?state=${encodeURIComponent(denied.callback.searchParams.get('state')!)}&error=access_denied`, { redirect: 'manual' });
    assert.equal(deniedAnswer.status, 301);
    assert.equal(deniedAnswer.headers.get('location'), FAILED);
    zoom.failNextToken(400, 'invalid_grant');
    const refused = await consent('zoom', stranger.apiKey);
    const refusedAnswer = await refused.back();
    assert.equal(refusedAnswer.headers.get('location'), FAILED);
    assert.deepEqual(await list(stranger.apiKey), [], 'nothing is stored when the provider refuses');

    const forged = await api.request('GET', `/v2/conferencing/zoom/oauth/callback?state=${encodeURIComponent(JSON.stringify({ returnTo: 'https://evil.example', accessToken: host.apiKey }))}&code=abc`);
    assert.equal(forged.status, 400, forged.text);
    assert.equal(forged.body.error.details.reason, 'conferencing_state_invalid');
    const missing = await api.request('GET', '/v2/conferencing/zoom/oauth/callback?code=abc');
    assert.equal(missing.status, 400);
    assert.match(missing.body.error.message, /^Missing `state` query param/);
    // A Zoom state is not good for Teams.
    const crossed = await api.request('GET', `/v2/conferencing/msteams/oauth/callback?state=${encodeURIComponent(refused.callback.searchParams.get('state')!)}&code=abc`);
    assert.equal(crossed.status, 400);

    const plain = await consent('zoom', stranger.apiKey, '');
    const plainAnswer = await plain.back();
    assert.equal(plainAnswer.status, 200);
    const body = (await plainAnswer.json()) as any;
    assert.equal(body.data.type, 'zoom_video');
    assert.equal(body.data.userId, stranger.userId, "the state's user gets the app, whoever's browser brings the code");

    const badReturn = await api.request('GET', `/v2/conferencing/zoom/oauth/auth-url?returnTo=${encodeURIComponent('javascript:alert(1)')}`, { key: host.apiKey });
    assert.equal(badReturn.status, 400);
    assert.equal(badReturn.body.error.details.property, 'returnTo');
    const calendarApp = await api.request('GET', '/v2/conferencing/google-meet/oauth/auth-url', { key: host.apiKey });
    assert.equal(calendarApp.status, 400);
    assert.equal(calendarApp.body.error.message, 'Invalid conferencing app, available apps are: zoom, msteams');
  });

  test('default: only an installed app or the built-in video; disconnecting the default app clears it', async () => {
    const unknown = await api.request('POST', '/v2/conferencing/skype/default', { key: host.apiKey });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error.message, /^Invalid app, available apps are: google-meet, zoom, msteams, daily-video, svc-video$/);
    const notMine = await api.request('POST', '/v2/conferencing/google-meet/default', { key: stranger.apiKey });
    assert.equal(notMine.status, 400);
    assert.equal(notMine.body.error.message, 'google-meet not connected.');

    const set = await api.request('POST', '/v2/conferencing/zoom/default', { key: host.apiKey });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body, { status: 'success' });
    assert.deepEqual((await api.request('GET', '/v2/conferencing/default', { key: host.apiKey })).body, { status: 'success', data: { appSlug: 'zoom' } });
    assert.deepEqual((await api.request('GET', '/v2/conferencing/default', { key: stranger.apiKey })).body, { status: 'success' }, "one user's default is not another's");

    const teams = await api.request('DELETE', '/v2/conferencing/msteams/disconnect', { key: host.apiKey });
    assert.equal(teams.status, 200, teams.text);
    assert.deepEqual((await api.request('GET', '/v2/conferencing/default', { key: host.apiKey })).body.data, { appSlug: 'zoom' }, 'another app going leaves the default');
    const gone = await api.request('DELETE', '/v2/conferencing/zoom/disconnect', { key: host.apiKey });
    assert.equal(gone.status, 200);
    assert.deepEqual((await api.request('GET', '/v2/conferencing/default', { key: host.apiKey })).body, { status: 'success' });
    assert.deepEqual((await list(host.apiKey)).map((app) => app.type), ['google_video']);
    const twice = await api.request('DELETE', '/v2/conferencing/zoom/disconnect', { key: host.apiKey });
    assert.equal(twice.status, 400);
    assert.equal(twice.body.error.message, 'zoom not connected.');
    // The stranger's Zoom (installed above) is untouched by the host's disconnect.
    assert.deepEqual((await list(stranger.apiKey)).map((app) => app.type), ['zoom_video']);

    const builtIn = await api.request('POST', '/v2/conferencing/daily-video/default', { key: host.apiKey });
    assert.equal(builtIn.status, 200);
    assert.deepEqual((await api.request('GET', '/v2/conferencing/default', { key: host.apiKey })).body.data, { appSlug: 'daily-video' });
  });

  test("an organization team's apps: its admins install, list, choose and remove them; members and other teams cannot", async () => {
    const { organization, owner } = await createOrganization(api);
    const orgId = organization.id;
    const teamOf = async (name: string) => (await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name } })).body.data as { id: number };
    const sales = await teamOf(`Sales ${Date.now()}`);
    const support = await teamOf(`Support ${Date.now()}`);
    const admin = await createOrgMember(api, orgId, owner.apiKey);
    const member = await createOrgMember(api, orgId, owner.apiKey);
    for (const [who, role] of [[admin, 'ADMIN'], [member, 'MEMBER']] as const) {
      const added = await api.request('POST', `/v2/organizations/${orgId}/teams/${sales.id}/memberships`, { key: owner.apiKey, body: { userId: who.user.id, role, accepted: true } });
      assert.equal(added.status, 201, added.text);
    }
    const base = `/v2/organizations/${orgId}/teams/${sales.id}/conferencing`;
    assert.deepEqual((await api.request('GET', base, { key: admin.apiKey })).body, { status: 'success', data: [] });
    assert.equal((await api.request('GET', base, { key: member.apiKey })).status, 403, 'a team member is not its admin');
    assert.equal((await api.request('GET', base, { key: stranger.apiKey })).status, 403);

    // Zoom for the team, through the same consent page; the provider comes back to the user-level callback.
    const answer = await api.request('GET', `${base}/zoom/oauth/auth-url?returnTo=${encodeURIComponent(DONE)}`, { key: admin.apiKey });
    assert.equal(answer.status, 200, answer.text);
    const page = await fetch(answer.body.data.url, { redirect: 'manual' });
    const callback = new URL(page.headers.get('location')!);
    assert.equal(callback.pathname, '/v2/conferencing/zoom/oauth/callback');
    // The team's own callback route takes only its own team's states, with a team admin's credential.
    const otherTeamsRoute = await api.request('GET', `/v2/organizations/${orgId}/teams/${support.id}/conferencing/zoom/oauth/callback${callback.search}`, { key: owner.apiKey });
    assert.equal(otherTeamsRoute.status, 400, otherTeamsRoute.text);
    assert.equal(otherTeamsRoute.body.error.details.reason, 'conferencing_state_invalid');
    const back = await fetch(`${api.baseUrl}${callback.pathname}${callback.search}`, { redirect: 'manual' });
    assert.equal(back.status, 301, await back.text());
    assert.equal(back.headers.get('location'), DONE);
    const listed = (await api.request('GET', base, { key: admin.apiKey })).body.data;
    assert.deepEqual(listed, [{ id: listed[0].id, type: 'zoom_video', userId: null, teamId: sales.id, appId: 'zoom', invalid: false }]);
    assert.ok(!(await list(admin.apiKey)).some((app) => app.type === 'zoom_video'), "the team's app is not the admin's own");
    assert.deepEqual((await api.request('GET', `/v2/organizations/${orgId}/teams/${support.id}/conferencing`, { key: owner.apiKey })).body.data, [], 'nor another team\'s');

    const meet = await api.request('POST', `${base}/google-meet/connect`, { key: admin.apiKey });
    assert.equal(meet.status, 400);
    assert.equal(meet.body.error.message, 'Google Meet requires a Google Calendar connection.');
    assert.equal((await api.request('POST', `${base}/msteams/default`, { key: admin.apiKey })).body.error.message, 'msteams not connected.');
    assert.equal((await api.request('POST', `${base}/zoom/default`, { key: admin.apiKey })).status, 200);
    assert.deepEqual((await api.request('GET', `${base}/default`, { key: owner.apiKey })).body, { status: 'success', data: { appSlug: 'zoom' } }, "the organization's owner administers its teams");
    assert.equal((await api.request('POST', `${base}/zoom/default`, { key: member.apiKey })).status, 403);
    assert.equal((await api.request('DELETE', `${base}/zoom/disconnect`, { key: member.apiKey })).status, 403);
    assert.equal((await api.request('DELETE', `${base}/zoom/disconnect`, { key: admin.apiKey })).status, 200);
    assert.deepEqual((await api.request('GET', `${base}/default`, { key: admin.apiKey })).body, { status: 'success' });
    assert.deepEqual((await api.request('GET', base, { key: admin.apiKey })).body.data, []);
  });

  test('an svc without a Zoom app says which settings register one', async () => {
    const unconfigured = await createTestApp();
    try {
      const user = await createHost(unconfigured, 'UTC');
      const refused = await unconfigured.request('GET', '/v2/conferencing/zoom/oauth/auth-url', { key: user.apiKey });
      assert.equal(refused.status, 404, refused.text);
      assert.match(refused.body.error.message, /^Zoom app not found: .*SVC_ZOOM_CLIENT_ID and SVC_ZOOM_CLIENT_SECRET/);
      const anonymous = await unconfigured.request('GET', '/v2/conferencing');
      assert.equal(anonymous.status, 401);
    } finally {
      await unconfigured.close();
    }
  });
});
