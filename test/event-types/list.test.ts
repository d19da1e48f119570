import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertNamesField, created, V } from './helpers.js';

describe('GET /v2/event-types filters (svc-api-version 2024-06-14)', () => {
  let api: TestApp;
  let owner: { user: any; apiKey: string };
  let other: { user: any; apiKey: string };
  let visible: any;
  let hidden: any;
  let later: any;
  const list = async (query: string, key?: string) => {
    const response = await api.request('GET', `/v2/event-types${query}`, { version: V, ...(key ? { key } : {}) });
    assert.equal(response.status, 200, response.text);
    return response.body.data as any[];
  };
  const ids = (items: { id: number }[]) => items.map((item) => item.id);

  before(async () => {
    api = await createTestApp();
    const tag = Math.random().toString(36).slice(2, 8);
    owner = await api.createUser({ username: `Owner-${tag}` });
    other = await api.createUser({ username: `other-${tag}` });
    visible = await created(api, owner.apiKey, { slug: 'visible', bookingFields: [{ type: 'text', slug: 'secret', label: 'Secret', required: false, hidden: true }] });
    hidden = await created(api, owner.apiKey, { slug: 'hidden-one', hidden: true });
    later = await created(api, owner.apiKey, { slug: 'later' });
    await created(api, other.apiKey, { slug: 'visible' });
  });
  after(() => api.close());

  test('by username: hidden event types only for their owner, whatever the username case', async () => {
    const name = owner.user.username as string;
    assert.deepEqual(ids(await list(`?username=${name}`)), [visible.id, later.id], 'anonymous');
    assert.deepEqual(ids(await list(`?username=${name.toLowerCase()}`, other.apiKey)), [visible.id, later.id], 'another user');
    assert.deepEqual(ids(await list(`?username=${name}`, owner.apiKey)), [visible.id, hidden.id, later.id], 'the owner');
    assert.deepEqual(await list('?username=nobody-by-that-name'), []);
  });

  test('a page at a time (svc: take up to 250, skip): the list is bounded, in its order', async () => {
    const name = owner.user.username as string;
    assert.deepEqual(ids(await list('?take=2', owner.apiKey)), [visible.id, hidden.id]);
    assert.deepEqual(ids(await list('?take=2&skip=2', owner.apiKey)), [later.id]);
    assert.deepEqual(ids(await list(`?username=${name}&take=1&skip=1&sortCreatedAt=desc`)), [visible.id]);
    const tooMany = await api.request('GET', '/v2/event-types?take=251', { version: V, key: owner.apiKey });
    assertNamesField(tooMany, 'take', 'take above 250');
  });

  test('the list leaves out booking fields hidden from the booker; a single read keeps them', async () => {
    const [item] = await list(`?username=${owner.user.username}&eventSlug=visible`);
    const slugs = item.bookingFields.map((field: { slug: string }) => field.slug);
    assert.deepEqual(slugs, ['name', 'email', 'location', 'notes', 'guests', 'rescheduleReason'], 'the secret field and the hidden title are left out');
    const single = await api.request('GET', `/v2/event-types/${visible.id}`, { key: owner.apiKey, version: V });
    assert.deepEqual(single.body.data.bookingFields, visible.bookingFields);
    assert.deepEqual({ ...item, bookingFields: visible.bookingFields }, visible);
  });

  test('eventSlug picks one event type of username; it needs username', async () => {
    assert.deepEqual(ids(await list(`?username=${owner.user.username}&eventSlug=VISIBLE`)), [visible.id]);
    assert.deepEqual(await list(`?username=${owner.user.username}&eventSlug=hidden-one`), [], 'hidden from others');
    assert.deepEqual(ids(await list(`?username=${owner.user.username}&eventSlug=hidden-one`, owner.apiKey)), [hidden.id]);
    assert.deepEqual(await list(`?username=${owner.user.username}&eventSlug=missing`), []);
    assertNamesField(await api.request('GET', '/v2/event-types?eventSlug=visible', { key: owner.apiKey, version: V }), 'username', 'eventSlug without username');
  });

  test('sortCreatedAt orders by creation; without filters a caller gets their own, an anonymous caller nothing', async () => {
    assert.deepEqual(ids(await list('?sortCreatedAt=desc', owner.apiKey)), [later.id, hidden.id, visible.id]);
    assert.deepEqual(ids(await list('?sortCreatedAt=asc', owner.apiKey)), [visible.id, hidden.id, later.id]);
    assert.deepEqual(ids(await list(`?username=${owner.user.username}&sortCreatedAt=desc`)), [later.id, visible.id]);
    assert.deepEqual(await list(''), []);
    assertNamesField(await api.request('GET', '/v2/event-types?sortCreatedAt=newest', { key: owner.apiKey, version: V }), 'sortCreatedAt', 'unknown sort order');
  });

  test('usernames gives the dynamic group event with the users found, in the order asked', async () => {
    const [dynamic, ...rest] = await list(`?usernames=${other.user.username}, ghost-user ,${owner.user.username}`);
    assert.deepEqual(rest, []);
    assert.deepEqual(
      { id: dynamic.id, ownerId: dynamic.ownerId, slug: dynamic.slug, title: dynamic.title, lengthInMinutes: dynamic.lengthInMinutes, options: dynamic.lengthInMinutesOptions },
      { id: 0, ownerId: 0, slug: 'dynamic', title: 'Group call', lengthInMinutes: 30, options: [15, 30, 45, 60, 90] },
    );
    assert.deepEqual(dynamic.users.map((user: { id: number }) => user.id), [other.user.id, owner.user.id]);
  });

  test('orgSlug and orgId: svc has no organizations yet, so no user matches', async () => {
    assert.deepEqual(await list(`?username=${owner.user.username}&orgSlug=acme`, owner.apiKey), []);
    assert.deepEqual(await list(`?username=${owner.user.username}&orgId=7`, owner.apiKey), []);
    assertNamesField(await api.request('GET', '/v2/event-types?orgId=seven', { version: V }), 'orgId', 'orgId is a number');
  });
});
