// POST /v1/teams?apiKey=... (spec endpoint 19 and 2.8): version 1, the API key in the query string.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMember, createOrganization, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';

const required = (slug: string) => ({
  name: `V1 ${slug}`,
  slug,
  hideBookATeamMember: false,
  brandColor: '#112233',
  darkBrandColor: '#445566',
  timeZone: 'Asia/Kolkata',
  weekStart: 'Monday',
  isPrivate: false,
});

describe('POST /v1/teams', () => {
  let api: TestApp;
  let user: Member;
  before(async () => {
    api = await createTestApp();
    user = await createMember(api);
  });
  after(() => api.close());

  test('creates the team with the caller as OWNER, authenticated by the apiKey query parameter', async () => {
    const response = await api.request('POST', `/v1/teams?apiKey=${user.apiKey}`, { body: required('v1-first') });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(
      [response.body.team.slug, response.body.team.timeZone, response.body.team.weekStart, response.body.team.brandColor, response.body.owner.userId, response.body.owner.role, response.body.owner.accepted],
      ['v1-first', 'Asia/Kolkata', 'Monday', '#112233', user.user.id, 'OWNER', true],
    );
    const teams = await api.request('GET', '/v2/teams', { key: user.apiKey });
    assert.ok(teams.body.data.some((team: any) => team.id === response.body.team.id));
  });

  test('without a key, with a wrong key, or with a required field missing', async () => {
    assert.equal((await api.request('POST', '/v1/teams', { body: required('v1-nokey') })).status, 401);
    assert.equal((await api.request('POST', '/v1/teams?apiKey=svc_00000000000000000000000000000000', { body: required('v1-badkey') })).status, 401);
    for (const field of ['slug', 'hideBookATeamMember', 'brandColor', 'darkBrandColor', 'timeZone', 'weekStart', 'isPrivate']) {
      const { [field]: _omitted, ...body } = required(`v1-missing-${field.toLowerCase()}`) as Record<string, unknown>;
      const response = await api.request('POST', `/v1/teams?apiKey=${user.apiKey}`, { body });
      assert.equal(response.status, 400, field);
      assert.equal(response.body.error.details.errors[0].property, field);
    }
  });

  test('ownerId is for the system admin only (401); parentId only into an organization the caller owns or administers (401), never a team (400)', async () => {
    // The reference's apps/api/v1/pages/api/teams/_post.ts: checkPermissions `if (!isSystemWideAdmin && body.ownerId) throw new
    // HttpError({ statusCode: 401, message: "ADMIN required for `ownerId`" })`; a parentId the caller is not OWNER or ADMIN of is
    // `statusCode: 401, message: "Unauthorized: Invalid parent id. You can only use parent id if you are org owner or admin."`,
    // and one with a parent of its own `statusCode: 400, message: "parentId must be of an organization, not a team."`.
    const other = await createMember(api);
    const refused = await api.request('POST', `/v1/teams?apiKey=${user.apiKey}`, { body: { ...required('v1-owner'), ownerId: other.user.id } });
    assert.deepEqual([refused.status, refused.body.error.code, refused.body.error.message], [401, 'UnauthorizedException', 'ADMIN required for `ownerId`']);
    const byAdmin = await api.request('POST', `/v1/teams?apiKey=${ADMIN_API_KEY}`, { body: { ...required('v1-owner'), ownerId: other.user.id } });
    assert.deepEqual([byAdmin.status, byAdmin.body.owner.userId], [201, other.user.id]);

    const { organization, owner } = await createOrganization(api);
    const invalidParent = 'Unauthorized: Invalid parent id. You can only use parent id if you are org owner or admin.';
    const outsider = await api.request('POST', `/v1/teams?apiKey=${user.apiKey}`, { body: { ...required('v1-child'), parentId: organization.id } });
    assert.deepEqual([outsider.status, outsider.body.error.message], [401, invalidParent]);
    const missing = await api.request('POST', `/v1/teams?apiKey=${user.apiKey}`, { body: { ...required('v1-child'), parentId: 2147483000 } });
    assert.deepEqual([missing.status, missing.body.error.message], [401, invalidParent]);
    const child = await api.request('POST', `/v1/teams?apiKey=${owner.apiKey}`, { body: { ...required('v1-child'), parentId: organization.id } });
    assert.deepEqual([child.status, child.body.team.parentId], [201, organization.id]);
    const notOrg = await api.request('POST', `/v1/teams?apiKey=${owner.apiKey}`, { body: { ...required('v1-child-2'), parentId: child.body.team.id } });
    assert.deepEqual([notOrg.status, notOrg.body.error.message, notOrg.body.error.details.errors[0].property], [400, 'parentId must be of an organization, not a team.', 'parentId']);
  });

  test('a slug any team already has (in an organization too) is the reference\'s 409 "Team slug already exists"', async () => {
    // _post.ts: `prisma.team.findFirst({ where: { slug: { mode: "insensitive", equals: data.slug } } })` over every team, then
    // `throw new HttpError({ statusCode: 409, message: "Team slug already exists" })`.
    const { organization, owner } = await createOrganization(api);
    const inOrganization = await api.request('POST', `/v2/organizations/${organization.id}/teams`, { key: owner.apiKey, body: { name: 'Org sales', slug: 'v1-org-sales' } });
    assert.equal(inOrganization.status, 201, inOrganization.text);
    for (const slug of ['v1-first', 'v1-org-sales']) {
      const taken = await api.request('POST', `/v1/teams?apiKey=${user.apiKey}`, { body: required(slug) });
      assert.deepEqual([taken.status, taken.body.error.code, taken.body.error.message, taken.body.error.details.reason], [409, 'ConflictException', 'Team slug already exists', 'team_slug_taken'], slug);
    }
  });
});
