// Organization attributes over HTTP on the store of the run: attributes and their options (create with
// options, list, get, update, delete; slugs unique per organization and per attribute, a 409 naming them;
// bad input a 400 naming the field); values given to members (an option, or a TEXT/NUMBER value that
// becomes one), one value per member for single-valued types, several for MULTI_SELECT; who holds what
// (by attribute id or slug, filtered by co-held options and teams), a member's values, unassigning; the
// values in organization memberships and the users list filtered by them (AND, OR, NONE); and access:
// members read, admins write, another organization's attributes, options and members are refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { acceptMembership, createOrganization, createOrgMember, type Member } from '../support/tenancy.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';

describe(`organization attributes (${backend})`, () => {
  let api: TestApp;
  let orgId: number;
  let owner: Member;
  let members: (Member & { membershipId: number })[];
  let other: { orgId: number; owner: Member; member: Member & { membershipId: number } };

  before(async () => {
    api = await createTestApp();
    const made = await createOrganization(api);
    orgId = made.organization.id;
    owner = made.owner;
    members = [];
    for (let index = 0; index < 4; index += 1) members.push(await createOrgMember(api, orgId, owner.apiKey));
    const second = await createOrganization(api);
    other = { orgId: second.organization.id, owner: second.owner, member: await createOrgMember(api, second.organization.id, second.owner.apiKey) };
  });
  after(() => api?.close());

  const path = (rest = '') => `/v2/organizations/${orgId}/attributes${rest}`;
  const as = (key: string, method: string, url: string, body?: unknown) => api.request(method, url, { key, ...(body === undefined ? {} : { body }) });
  const admin = (method: string, url: string, body?: unknown) => as(owner.apiKey, method, url, body);
  async function created(body: Record<string, unknown>) {
    const response = await admin('POST', path(), body);
    assert.equal(response.status, 201, response.text);
    return response.body.data;
  }
  const optionsOf = async (attributeId: string) => (await admin('GET', path(`/${attributeId}/options`))).body.data as { id: string; value: string; slug: string }[];

  test('create with options, read, update, delete; slugs unique; bad input names its field', async () => {
    const region = await created({ name: 'Region', slug: 'region', type: 'SINGLE_SELECT', options: [{ value: 'Europe', slug: 'eu' }, { value: 'Americas', slug: 'am' }] });
    assert.deepEqual({ ...region, id: 'x' }, { id: 'x', teamId: orgId, type: 'SINGLE_SELECT', name: 'Region', slug: 'region', enabled: true, usersCanEditRelation: false });
    assert.deepEqual((await optionsOf(region.id)).map((option) => [option.value, option.slug]), [['Europe', 'eu'], ['Americas', 'am']]);
    const text = await created({ name: 'Nickname', slug: 'nickname', type: 'TEXT', options: [{ value: 'ignored', slug: 'ignored' }], enabled: false });
    assert.equal(text.enabled, false);
    assert.deepEqual(await optionsOf(text.id), [], 'a TEXT attribute takes its options from the values given');

    const taken = await admin('POST', path(), { name: 'Region again', slug: 'REGION', type: 'TEXT', options: [] });
    assert.equal(taken.status, 409, taken.text);
    assert.equal(taken.body.error.details.property, 'slug');
    const repeated = await admin('POST', path(), { name: 'Lang', slug: 'lang', type: 'MULTI_SELECT', options: [{ value: 'German', slug: 'de' }, { value: 'Deutsch', slug: 'DE' }] });
    assert.equal(repeated.status, 400, repeated.text);
    assert.match(repeated.body.error.message, /options\.1\.slug/);
    const badType = await admin('POST', path(), { name: 'X', slug: 'x', type: 'COLOUR', options: [] });
    assert.equal(badType.status, 400);
    assert.match(JSON.stringify(badType.body.error), /type/);
    const noOptions = await admin('POST', path(), { name: 'X', slug: 'x', type: 'TEXT' });
    assert.equal(noOptions.status, 400);
    assert.match(JSON.stringify(noOptions.body.error), /options/);

    const renamed = await admin('PATCH', path(`/${text.id}`), { name: 'Nick', enabled: true });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual([renamed.body.data.name, renamed.body.data.slug, renamed.body.data.enabled], ['Nick', 'nickname', true]);
    assert.equal((await admin('PATCH', path(`/${text.id}`), { slug: 'Region' })).status, 409);
    const listed = (await admin('GET', path())).body.data.map((attribute: any) => attribute.slug);
    assert.deepEqual(listed, ['region', 'nickname']);
    assert.deepEqual((await admin('GET', `${path()}?take=1&skip=1`)).body.data.map((attribute: any) => attribute.slug), ['nickname']);

    const option = await admin('POST', path(`/${region.id}/options`), { value: 'Asia', slug: 'as' });
    assert.equal(option.status, 201, option.text);
    assert.deepEqual({ ...option.body.data, id: 'x' }, { id: 'x', attributeId: region.id, value: 'Asia', slug: 'as' });
    assert.equal((await admin('POST', path(`/${region.id}/options`), { value: 'Asia 2', slug: 'AS' })).status, 409);
    const changed = await admin('PATCH', path(`/${region.id}/options/${option.body.data.id}`), { value: 'Asia-Pacific', slug: 'apac' });
    assert.deepEqual([changed.status, changed.body.data.value, changed.body.data.slug], [200, 'Asia-Pacific', 'apac']);
    const dropped = await admin('DELETE', path(`/${region.id}/options/${option.body.data.id}`));
    assert.deepEqual([dropped.status, dropped.body.data.slug], [200, 'apac']);
    assert.equal((await admin('DELETE', path(`/${region.id}/options/${option.body.data.id}`))).status, 404);
    assert.equal((await admin('PATCH', path(`/${text.id}/options/${(await optionsOf(region.id))[0]!.id}`), { value: 'x' })).status, 404, "another attribute's option");

    const deleted = await admin('DELETE', path(`/${text.id}`));
    assert.deepEqual([deleted.status, deleted.body.data.slug], [200, 'nickname']);
    assert.equal((await admin('GET', path(`/${text.id}`))).status, 404);
  });

  test('values of members: options and TEXT/NUMBER values, one per member unless MULTI_SELECT; who holds what; unassigning', async () => {
    const [ann, ben, cat, dan] = members as [typeof members[number], typeof members[number], typeof members[number], typeof members[number]];
    const zone = await created({ name: 'Zone', slug: 'zone', type: 'SINGLE_SELECT', options: [{ value: 'North', slug: 'north' }, { value: 'South', slug: 'south' }] });
    const langs = await created({ name: 'Languages', slug: 'languages', type: 'MULTI_SELECT', options: [{ value: 'German', slug: 'de' }, { value: 'French', slug: 'fr' }] });
    const seniority = await created({ name: 'Years', slug: 'years', type: 'NUMBER', options: [] });
    const [north, south] = await optionsOf(zone.id);
    const [de, fr] = await optionsOf(langs.id);
    const assign = (member: Member, body: Record<string, unknown>) => admin('POST', path(`/options/${member.user.id}`), body);

    const first = await assign(ann, { attributeId: zone.id, attributeOptionId: north!.id });
    assert.equal(first.status, 201, first.text);
    assert.deepEqual({ ...first.body.data, id: 'x' }, { id: 'x', memberId: ann.membershipId, attributeOptionId: north!.id });
    const again = await assign(ann, { attributeId: zone.id, attributeOptionId: north!.id });
    assert.equal(again.body.data.id, first.body.data.id, 'holding it already changes nothing');
    await assign(ann, { attributeId: zone.id, attributeOptionId: south!.id });
    assert.deepEqual((await admin('GET', path(`/options/${ann.user.id}`))).body.data.map((option: any) => option.value), ['South'], 'a single select holds one value');
    await assign(ann, { attributeId: langs.id, attributeOptionId: de!.id });
    await assign(ann, { attributeId: langs.id, attributeOptionId: fr!.id });
    await assign(ben, { attributeId: zone.id, attributeOptionId: south!.id });
    await assign(ben, { attributeId: langs.id, attributeOptionId: de!.id });
    await assign(cat, { attributeId: zone.id, attributeOptionId: north!.id });
    assert.deepEqual((await admin('GET', path(`/options/${ann.user.id}`))).body.data.map((option: any) => option.value), ['South', 'German', 'French']);

    const years = await assign(dan, { attributeId: seniority.id, value: '7' });
    assert.equal(years.status, 201, years.text);
    const sameValue = await assign(cat, { attributeId: seniority.id, value: '7' });
    assert.equal(sameValue.body.data.attributeOptionId, years.body.data.attributeOptionId, 'one option per value');
    assert.deepEqual((await optionsOf(seniority.id)).map((option) => [option.value, option.slug]), [['7', '7']]);
    const notNumber = await assign(dan, { attributeId: seniority.id, value: 'seven' });
    assert.equal(notNumber.status, 400);
    assert.match(notNumber.body.error.message, /^value must be a number/);
    const valueOnSelect = await assign(dan, { attributeId: zone.id, value: 'North' });
    assert.deepEqual([valueOnSelect.status, valueOnSelect.body.error.message], [400, 'Attribute type does not support value']);
    const neither = await assign(dan, { attributeId: zone.id });
    assert.equal(neither.status, 400);
    assert.match(neither.body.error.message, /^attributeOptionId or value is required/);
    assert.equal((await assign(dan, { attributeId: zone.id, attributeOptionId: de!.id })).status, 404, "another attribute's option");
    assert.equal((await assign(other.member, { attributeId: zone.id, attributeOptionId: north!.id })).status, 404, 'not a member of this organization');
    const stranger = await api.createUser();
    const notMember = await assign(stranger, { attributeId: zone.id, attributeOptionId: north!.id });
    assert.deepEqual([notMember.status, notMember.body.error.message], [404, 'User is not a member of the organization']);

    const held = (await admin('GET', path(`/${zone.id}/options/assigned`))).body.data;
    assert.deepEqual(held.map((option: any) => [option.value, option.assignedUserIds]), [['North', [cat.user.id]], ['South', [ann.user.id, ben.user.id].sort((a, b) => a - b)]]);
    const bySlug = (await admin('GET', path('/slugs/ZONE/options/assigned'))).body.data;
    assert.deepEqual(bySlug, held);
    const withFrench = await admin('GET', `${path(`/${zone.id}/options/assigned`)}?assignedOptionIds=${fr!.id}`);
    assert.deepEqual(withFrench.body.data.map((option: any) => option.value), ['South'], 'only Ann speaks French, and she is South');
    const nobody = await admin('GET', `${path(`/${zone.id}/options/assigned`)}?assignedOptionIds=${years.body.data.attributeOptionId}`);
    assert.deepEqual(nobody.body.data.map((option: any) => option.value), ['North'], 'Cat has 7 years');
    const team = await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: 'Support' } });
    assert.equal(team.status, 201, team.text);
    const added = await api.request('POST', `/v2/organizations/${orgId}/teams/${team.body.data.id}/memberships`, { key: owner.apiKey, body: { userId: ben.user.id, accepted: true } });
    assert.equal(added.status, 201, added.text);
    if (!added.body.data.accepted) await acceptMembership(api, ben, `/v2/organizations/${orgId}/teams/${team.body.data.id}/memberships/${added.body.data.id}`);
    const inTeam = await admin('GET', `${path(`/${zone.id}/options/assigned`)}?teamIds=${team.body.data.id}`);
    assert.deepEqual(inTeam.body.data.map((option: any) => option.value), ['South']);

    const removed = await admin('DELETE', path(`/options/${ann.user.id}/${fr!.id}`));
    assert.deepEqual([removed.status, removed.body.data.attributeOptionId, removed.body.data.memberId], [200, fr!.id, ann.membershipId]);
    const removedAgain = await admin('DELETE', path(`/options/${ann.user.id}/${fr!.id}`));
    assert.deepEqual([removedAgain.status, removedAgain.body.error.message], [404, 'Attribute does not belong to this user']);

    // Organization memberships show the values; the users list filters by them.
    const membership = (await admin('GET', `/v2/organizations/${orgId}/memberships/${ann.membershipId}`)).body.data;
    assert.deepEqual(membership.attributes, [
      { id: zone.id, name: 'Zone', type: 'SINGLE_SELECT', option: 'South', optionId: south!.id },
      { id: langs.id, name: 'Languages', type: 'MULTI_SELECT', options: [{ optionId: de!.id, option: 'German' }] },
    ]);
    const usersWith = async (query: string) =>
      ((await admin('GET', `/v2/organizations/${orgId}/users?${query}`)).body.data as { id: number }[]).map((user) => user.id).filter((id) => members.some((member) => member.user.id === id));
    const ids = (...list: Member[]) => list.map((member) => member.user.id).sort((a, b) => a - b);
    assert.deepEqual(await usersWith(`assignedOptionIds=${south!.id},${de!.id}`), ids(ann, ben), 'AND');
    assert.deepEqual(await usersWith(`assignedOptionIds=${south!.id},${de!.id}&attributeQueryOperator=AND`), ids(ann, ben));
    assert.deepEqual(await usersWith(`assignedOptionIds=${north!.id}&assignedOptionIds=${de!.id}&attributeQueryOperator=OR`), ids(ann, ben, cat));
    assert.deepEqual(await usersWith(`assignedOptionIds=${south!.id}&attributeQueryOperator=NONE`), ids(cat, dan));

    // Deleting the attribute takes every member's value of it.
    assert.equal((await admin('DELETE', path(`/${langs.id}`))).status, 200);
    assert.deepEqual((await admin('GET', path(`/options/${ann.user.id}`))).body.data.map((option: any) => option.value), ['South']);
  });

  test('members read, admins write; another organization and outsiders are refused', async () => {
    const member = members[0]!;
    const attribute = await created({ name: 'Office', slug: 'office', type: 'SINGLE_SELECT', options: [{ value: 'Riga', slug: 'riga' }] });
    const [riga] = await optionsOf(attribute.id);
    assert.equal((await as(member.apiKey, 'GET', path())).status, 200, 'a member reads');
    assert.equal((await as(member.apiKey, 'GET', path(`/${attribute.id}/options`))).status, 200);
    for (const [method, url, body] of [
      ['POST', path(), { name: 'Mine', slug: 'mine', type: 'TEXT', options: [] }],
      ['PATCH', path(`/${attribute.id}`), { name: 'Hacked' }],
      ['DELETE', path(`/${attribute.id}`), undefined],
      ['POST', path(`/${attribute.id}/options`), { value: 'Tallinn', slug: 'tln' }],
      ['POST', path(`/options/${member.user.id}`), { attributeId: attribute.id, attributeOptionId: riga!.id }],
      ['DELETE', path(`/options/${member.user.id}/${riga!.id}`), undefined],
    ] as const) {
      assert.equal((await as(member.apiKey, method, url, body)).status, 403, `a member may not ${method} ${url}`);
    }
    // Another organization's admin, on this organization's paths and with this organization's ids on theirs.
    assert.equal((await as(other.owner.apiKey, 'GET', path())).status, 403);
    assert.equal((await as(other.owner.apiKey, 'GET', `/v2/organizations/${other.orgId}/attributes/${attribute.id}`)).status, 404);
    assert.equal((await as(other.owner.apiKey, 'DELETE', `/v2/organizations/${other.orgId}/attributes/${attribute.id}`)).status, 404);
    assert.equal((await as(other.owner.apiKey, 'POST', `/v2/organizations/${other.orgId}/attributes/options/${other.member.user.id}`, { attributeId: attribute.id, attributeOptionId: riga!.id })).status, 404);
    assert.equal((await admin('GET', path(`/${attribute.id}`))).body.data.name, 'Office', 'nothing was changed');
    const outsider = await api.createUser();
    assert.equal((await as(outsider.apiKey, 'GET', path())).status, 403);
    assert.equal((await api.request('GET', path())).status, 401);
  });
});
