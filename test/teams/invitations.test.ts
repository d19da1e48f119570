// Nobody is made a member without consent: a user added by someone else is a pending member who is
// mailed an invitation (over a real SMTP server), and until they accept (through the API, or the mailed
// link on svc's invitation page, in a real browser too) the team sees nothing of theirs and cannot make
// them a host. The reference's own exceptions (an organization's members added to its teams, accounts the
// organization made) and the system admin join at once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startSmtpReceiver, type SmtpReceiver } from '../mail/helpers.js';
import { createPasswordUser, csrfOf, logIn, PASSWORD, WebClient } from '../oauth/helpers.js';
import { createTeamEventType } from '../support/team-scheduling.js';
import { eventually } from '../support/eventually.js';
import { createMember, createOrganization, createTeam, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => fs.existsSync(path));

describe('memberships need the member\'s consent', () => {
  let api: TestApp;
  let smtp: SmtpReceiver;
  before(async () => {
    smtp = await startSmtpReceiver();
    api = await createTestApp({ SMTP_URL: smtp.url, SMTP_FROM: 'Svc <teams@svc.test>', APP_URL: 'https://app.example' });
  });
  after(async () => {
    await api.close();
    await smtp.close();
  });

  const invitationsTo = (email: string) => smtp.to(email).filter((mail) => mail.email.subject?.startsWith('Invitation to join'));
  /** The token of the latest invitation mailed to `email`. */
  async function mailedToken(email: string): Promise<{ token: string; text: string }> {
    await eventually(async () => invitationsTo(email).length > 0);
    const text = invitationsTo(email).at(-1)!.email.text!;
    const match = /https:\/\/app\.example\/teams\?token=([0-9a-f]{64})/.exec(text);
    assert.ok(match, `the invitation carries its link: ${text}`);
    return { token: match[1]!, text };
  }

  test('over HTTP: an invitee is pending and invisible, cannot be made a host, is mailed once, and joins by accepting', async () => {
    const owner = await createMember(api);
    const team = await createTeam(api, owner, { name: 'Night shift' });
    const invitee = await createPasswordUser(api);
    const base = `/v2/teams/${team.id}/memberships`;

    const created = await api.request('POST', base, { key: owner.apiKey, body: { userId: invitee.user.id, role: 'ADMIN', accepted: true } });
    assert.equal(created.status, 201, created.text);
    const membershipId = created.body.data.id;
    assert.deepEqual([created.body.data.accepted, created.body.data.role, created.body.data.user], [false, 'ADMIN', undefined], 'pending, and who they are is not shown');

    // The mail: svc's words first, the team, who invited, the link and the API calls.
    const { token, text } = await mailedToken(invitee.email);
    const mail = invitationsTo(invitee.email)[0]!;
    assert.equal(mail.email.subject, 'Invitation to join "Night shift"');
    assert.match(text, new RegExp(`POST ${base}/${membershipId}/accept`));
    assert.match(text, new RegExp(`POST ${base}/${membershipId}/decline`));

    // Until they answer, the team sees nothing of theirs and cannot book them.
    const listed = (await api.request('GET', base, { key: owner.apiKey })).body.data.find((m: any) => m.userId === invitee.user.id);
    assert.equal(listed.user, undefined);
    assert.ok(!(await api.request('GET', `${base}/${membershipId}`, { key: owner.apiKey })).text.includes(invitee.email), 'the email is nowhere');
    await api.request('POST', '/v2/schedules', { key: invitee.apiKey, version: '2024-06-11', body: { name: 'Mine', timeZone: 'Asia/Kolkata', isDefault: true } });
    assert.deepEqual((await api.request('GET', `/v2/teams/${team.id}/schedules`, { key: owner.apiKey })).body.data.map((s: any) => s.ownerId), []);
    const asHost = await api.request('POST', `/v2/teams/${team.id}/event-types`, {
      key: owner.apiKey,
      body: { title: 'Cover', slug: `cover-${Date.now()}`, lengthInMinutes: 30, schedulingType: 'collective', hosts: [{ userId: invitee.user.id }] },
    });
    assert.deepEqual([asHost.status, asHost.body.error.details.reason], [404, 'host_not_team_member']);
    assert.match(asHost.body.error.message, new RegExp(`membership of user ${invitee.user.id} \\(id ${membershipId}\\) is pending until they accept it: POST ${base}/${membershipId}/accept`));
    // Nobody else accepts for them: not the owner, not another user with the id.
    const forced = await api.request('PATCH', `${base}/${membershipId}`, { key: owner.apiKey, body: { accepted: true } });
    assert.deepEqual([forced.status, forced.body.error.details.reason], [403, 'membership_acceptance_by_member_only']);
    const stranger = await createMember(api);
    assert.equal((await api.request('POST', `${base}/${membershipId}/accept`, { key: stranger.apiKey })).status, 404);

    // Removed and added again the same day: no second mail (an admin cannot flood an inbox).
    assert.equal((await api.request('DELETE', `${base}/${membershipId}`, { key: owner.apiKey })).status, 200);
    const again = await api.request('POST', base, { key: owner.apiKey, body: { userId: invitee.user.id } });
    assert.equal(again.status, 201, again.text);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(invitationsTo(invitee.email).length, 1, 'one invitation mail a day per team');

    // The mailed link still answers for the new membership; the invitee accepts on the page.
    const web = new WebClient(api.baseUrl);
    const toLogin = await web.get(`/teams?token=${token}`);
    assert.equal(toLogin.status, 303);
    assert.match(toLogin.location!, /^\/auth\/login\?next=/);
    await logIn(web, invitee.email);
    const page = await web.get(`/teams?token=${token}`);
    assert.equal(page.status, 200, page.html);
    assert.match(page.html, /You were invited to join <strong id="team-name">Night shift<\/strong> as <strong>MEMBER<\/strong>/);
    const answered = await web.post('/teams/invitations', { csrf: csrfOf(page.html), token, answer: 'accept' });
    assert.equal(answered.status, 200, answered.html);
    assert.match(answered.html, /You joined <strong>Night shift<\/strong>/);

    const joined = (await api.request('GET', base, { key: owner.apiKey })).body.data.find((m: any) => m.userId === invitee.user.id);
    assert.deepEqual([joined.accepted, joined.user.email], [true, invitee.email]);
    assert.deepEqual((await api.request('GET', `/v2/teams/${team.id}/schedules`, { key: owner.apiKey })).body.data.map((s: any) => s.ownerId), [invitee.user.id]);
    const hosted = await createTeamEventType(api, owner.apiKey, team.id, { title: 'Cover', slug: `cover2-${Date.now()}`, lengthInMinutes: 30, schedulingType: 'collective', hosts: [{ userId: invitee.user.id }] });
    assert.deepEqual(hosted.hosts.map((host: any) => host.userId), [invitee.user.id]);
    assert.equal((await web.get(`/teams?token=${token}`)).status, 404, 'a used invitation is gone');
  });

  test('declining, through the API and the page; a link is its invitee\'s alone', async () => {
    const owner = await createMember(api);
    const team = await createTeam(api, owner);
    const base = `/v2/teams/${team.id}/memberships`;
    const first = await createPasswordUser(api);
    const second = await createPasswordUser(api);
    const [a, b] = [
      (await api.request('POST', base, { key: owner.apiKey, body: { userId: first.user.id } })).body.data,
      (await api.request('POST', base, { key: owner.apiKey, body: { userId: second.user.id } })).body.data,
    ];
    const declined = await api.request('POST', `${base}/${a.id}/decline`, { key: first.apiKey });
    assert.deepEqual([declined.status, declined.body.data.id], [200, a.id]);
    assert.equal((await api.request('GET', `${base}/${a.id}`, { key: owner.apiKey })).status, 404);
    assert.equal((await api.request('POST', `${base}/${a.id}/accept`, { key: first.apiKey })).status, 404, 'nothing left to accept');

    const { token } = await mailedToken(second.email);
    const intruder = new WebClient(api.baseUrl);
    await logIn(intruder, first.email);
    const refused = await intruder.get(`/teams?token=${token}`);
    assert.equal(refused.status, 403);
    assert.match(refused.html, /This invitation is for another account/);
    const web = new WebClient(api.baseUrl);
    await logIn(web, second.email);
    const page = await web.get(`/teams?token=${token}`);
    const answered = await web.post('/teams/invitations', { csrf: csrfOf(page.html), token, answer: 'decline' });
    assert.equal(answered.status, 200, answered.html);
    assert.equal((await api.request('GET', `${base}/${b.id}`, { key: owner.apiKey })).status, 404);
    assert.equal((await web.post('/teams/invitations', { csrf: 'forged', token, answer: 'accept' })).status, 403, 'a form without the session\'s CSRF token does nothing');

    const accepted = await api.request('POST', base, { key: owner.apiKey, body: { userId: first.user.id } });
    assert.equal((await api.request('POST', `${base}/${accepted.body.data.id}/accept`, { key: first.apiKey })).status, 200);
    const late = await api.request('POST', `${base}/${accepted.body.data.id}/decline`, { key: first.apiKey });
    assert.deepEqual([late.status, late.body.error.details.reason], [409, 'membership_already_accepted']);
  });

  test('organizations: a pending member has no profile there (invisible to its user routes) until they accept', async () => {
    const { organization, owner } = await createOrganization(api);
    const orgId = organization.id;
    const invitee = await createPasswordUser(api);
    const created = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey, body: { userId: invitee.user.id, accepted: true } });
    assert.deepEqual([created.status, created.body.data.accepted], [201, false]);
    const users = async () => (await api.request('GET', `/v2/organizations/${orgId}/users`, { key: owner.apiKey })).body.data.map((u: any) => u.id);
    assert.ok(!(await users()).includes(invitee.user.id));
    assert.deepEqual((await api.request('GET', `/v2/organizations/${orgId}/users/${invitee.user.id}/schedules`, { key: owner.apiKey })).body.error.details.reason, 'user_not_in_organization', 'their schedules are not the organization\'s to read');
    const team = (await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: `Org team ${Date.now()}` } })).body.data;
    const toTeam = await api.request('POST', `/v2/organizations/${orgId}/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: invitee.user.id, accepted: true } });
    assert.deepEqual([toTeam.status, toTeam.body.error.details.reason], [422, 'user_not_in_organization']);

    assert.equal((await api.request('POST', `/v2/organizations/${orgId}/memberships/${created.body.data.id}/accept`, { key: invitee.apiKey })).status, 200);
    assert.ok((await users()).includes(invitee.user.id), 'accepted: a profile there');
    // The reference's exception: an accepted member added to the organization's team joins it at once, unmailed.
    const mailsBefore = invitationsTo(invitee.email).length;
    const direct = await api.request('POST', `/v2/organizations/${orgId}/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: invitee.user.id, accepted: true } });
    assert.deepEqual([direct.status, direct.body.data.accepted, direct.body.data.user.email], [201, true, invitee.email]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(invitationsTo(invitee.email).length, mailsBefore);
  });

  test('the exceptions join at once: users the organization made, and additions by the system admin', async () => {
    const { organization, owner } = await createOrganization(api);
    const orgId = organization.id;
    const made = await api.request('POST', `/v2/organizations/${orgId}/users`, { key: owner.apiKey, body: { email: `made-${Date.now()}@example.com` } });
    assert.equal(made.status, 201, made.text);
    const membership = (await api.request('GET', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey })).body.data.find((m: any) => m.userId === made.body.data.id);
    assert.equal(membership.accepted, true);
    // Removed and added again, the account is still the organization's: no consent needed.
    assert.equal((await api.request('DELETE', `/v2/organizations/${orgId}/memberships/${membership.id}`, { key: owner.apiKey })).status, 200);
    const back = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey, body: { userId: made.body.data.id, accepted: true } });
    assert.deepEqual([back.status, back.body.data.accepted], [201, true]);

    const byAdmin = await createMember(api);
    const added = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: ADMIN_API_KEY, body: { userId: byAdmin.user.id, accepted: true } });
    assert.deepEqual([added.status, added.body.data.accepted], [201, true]);
  });

  test('an invite link (POST .../invite) lets whoever opens it join the team, and its organization with them', async () => {
    const { organization, owner } = await createOrganization(api);
    const team = (await api.request('POST', `/v2/organizations/${organization.id}/teams`, { key: owner.apiKey, body: { name: `Linked ${Date.now()}` } })).body.data;
    const link = await api.request('POST', `/v2/organizations/${organization.id}/teams/${team.id}/invite`, { key: owner.apiKey });
    assert.equal(link.status, 200, link.text);
    const joiner = await createPasswordUser(api);
    const web = new WebClient(api.baseUrl);
    await logIn(web, joiner.email);
    const page = await web.get(`/teams?token=${link.body.data.token}`);
    assert.equal(page.status, 200, page.html);
    assert.match(page.html, /This link lets you join/);
    assert.equal((await web.post('/teams/invitations', { csrf: csrfOf(page.html), token: link.body.data.token, answer: 'accept' })).status, 200);
    const teamMembers = (await api.request('GET', `/v2/organizations/${organization.id}/teams/${team.id}/memberships`, { key: owner.apiKey })).body.data;
    assert.deepEqual(teamMembers.filter((m: any) => m.userId === joiner.user.id).map((m: any) => [m.role, m.accepted]), [['MEMBER', true]]);
    const orgUsers = (await api.request('GET', `/v2/organizations/${organization.id}/users`, { key: owner.apiKey })).body.data.map((u: any) => u.id);
    assert.ok(orgUsers.includes(joiner.user.id), 'a member of the organization, with a profile');

    await api.runtime.ctx.database.db.execute(`update team_invite_tokens set expires_at = now() - interval '1 second' where team_id = ${team.id}` as never);
    const expired = await web.get(`/teams?token=${link.body.data.token}`);
    assert.equal(expired.status, 404);
    assert.match(expired.html, /not valid any more/);
  });

  test('in a real browser: the mailed link, the login, and Accept', { skip: CHROMIUM ? false : "Debian's chromium is not installed: SKIPPED" }, async () => {
    const owner = await createMember(api);
    const team = await createTeam(api, owner, { name: 'Browser crew' });
    const invitee: { user: any; apiKey: string; email: string } = await createPasswordUser(api);
    await api.request('POST', `/v2/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: invitee.user.id } });
    const { token } = await mailedToken(invitee.email);
    const { chromium } = await import('playwright-core');
    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'] });
    try {
      const page = await (await browser.newContext({ baseURL: api.baseUrl })).newPage();
      await page.goto(`/teams?token=${token}`);
      await page.getByLabel('Email').fill(invitee.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('button', { name: 'Accept' }).click();
      await page.getByText('You joined').waitFor();
      const members = (await api.request('GET', `/v2/teams/${team.id}/memberships`, { key: owner.apiKey })).body.data as (Member['user'] & { userId: number; accepted: boolean })[];
      assert.equal(members.find((m) => m.userId === invitee.user.id)?.accepted, true);
    } finally {
      await browser.close();
    }
  });
});
