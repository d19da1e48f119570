import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { assertNamesField, created as createdEventType, V as EVENT_TYPE_VERSION } from '../event-types/helpers.js';
import { ADMIN_API_KEY, createTestApp, type ApiResponse, type TestApp } from '../support/test-app.js';

const BASE_TRIGGERS = [
  'BOOKING_CREATED', 'BOOKING_PAYMENT_INITIATED', 'BOOKING_PAID', 'BOOKING_RESCHEDULED', 'BOOKING_REQUESTED', 'BOOKING_CANCELLED',
  'BOOKING_REJECTED', 'BOOKING_NO_SHOW_UPDATED', 'FORM_SUBMITTED', 'MEETING_ENDED', 'MEETING_STARTED', 'RECORDING_READY',
  'INSTANT_MEETING', 'RECORDING_TRANSCRIPTION_GENERATED', 'OOO_CREATED', 'AFTER_HOSTS_SVC_VIDEO_NO_SHOW',
  'AFTER_GUESTS_SVC_VIDEO_NO_SHOW', 'FORM_SUBMITTED_NO_EVENT', 'DELEGATION_CREDENTIAL_ERROR',
];
const TEMPLATE = '{"content":"A new event has been scheduled","type":"{{type}}","name":"{{title}}","organizer":"{{organizer.name}}","booker":"{{attendees.0.name}}"}';

let urlCounter = 0;
const nextUrl = () => `https://hooks.example.com/receiver/${++urlCounter}`;

function minimal(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { subscriberUrl: nextUrl(), active: true, triggers: ['BOOKING_CREATED'], ...fields };
}

function expectStatus(response: ApiResponse, status: number): any {
  assert.equal(response.status, status, response.text);
  return response.body.data;
}

async function rowsOf<T>(api: TestApp, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = await api.runtime.ctx.database.db.execute(query);
  return (result as unknown as { rows: T[] }).rows;
}

/** The two route families, so the same rules are checked at both levels. */
interface Level {
  name: string;
  /** The collection path for a user with `key` (creating an event type for the event-type level). */
  collection(user: { apiKey: string }): Promise<string>;
  ownerField: 'userId' | 'eventTypeId';
}

describe('webhook subscriptions', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  const userLevel: Level = { name: 'user', collection: async () => '/v2/webhooks', ownerField: 'userId' };
  const eventTypeLevel: Level = {
    name: 'event type',
    collection: async (user) => `/v2/event-types/${(await createdEventType(api, user.apiKey)).id}/webhooks`,
    ownerField: 'eventTypeId',
  };

  describe('user webhooks (/v2/webhooks)', () => {
    test('a create returns the webhook with its secret shown back; GET reads the same', async () => {
      const { user, apiKey } = await api.createUser();
      const subscriberUrl = nextUrl();
      const body = { subscriberUrl, active: true, triggers: ['BOOKING_CREATED', 'BOOKING_CANCELLED'], payloadTemplate: TEMPLATE, secret: 'whsec-clear-text-1', version: '2021-10-20' };
      const data = expectStatus(await api.request('POST', '/v2/webhooks', { key: apiKey, body }), 201);
      assert.deepEqual(data, {
        id: data.id,
        subscriberUrl,
        active: true,
        triggers: ['BOOKING_CREATED', 'BOOKING_CANCELLED'],
        payloadTemplate: TEMPLATE,
        secret: 'whsec-clear-text-1',
        version: '2021-10-20',
        userId: user.id,
      });
      assert.equal(typeof data.id, 'number');
      assert.deepEqual(expectStatus(await api.request('GET', `/v2/webhooks/${data.id}`, { key: apiKey }), 200), data);
    });

    test('without the optional fields: payloadTemplate and secret are null, version 2021-10-20', async () => {
      const { user, apiKey } = await api.createUser();
      const body = minimal({ active: false });
      const data = expectStatus(await api.request('POST', '/v2/webhooks', { key: apiKey, body }), 201);
      assert.deepEqual(data, { id: data.id, subscriberUrl: body.subscriberUrl, active: false, triggers: ['BOOKING_CREATED'], payloadTemplate: null, secret: null, version: '2021-10-20', userId: user.id });
    });

    test('every base trigger is accepted', async () => {
      const { apiKey } = await api.createUser();
      const data = expectStatus(await api.request('POST', '/v2/webhooks', { key: apiKey, body: minimal({ triggers: BASE_TRIGGERS }) }), 201);
      assert.deepEqual(data.triggers, BASE_TRIGGERS);
    });

    test('the secret is stored sealed, never in clear, and opens to what was sent', async () => {
      const { apiKey } = await api.createUser();
      const secret = `whsec-${Math.random().toString(36).slice(2)}`;
      const data = expectStatus(await api.request('POST', '/v2/webhooks', { key: apiKey, body: minimal({ secret }) }), 201);
      const rows = await rowsOf<Record<string, unknown>>(api, sql`select * from webhooks where id = ${data.id}`);
      assert.equal(rows.length, 1);
      const stored = JSON.stringify(rows[0]);
      assert.ok(!stored.includes(secret), `the clear secret is nowhere in the row: ${stored}`);
      const sealed = rows[0]!.secret_sealed as string;
      assert.match(sealed, /^v1:/);
      assert.equal(api.runtime.ctx.secrets.open(sealed), secret);

      const rotated = `${secret}-rotated`;
      const patched = expectStatus(await api.request('PATCH', `/v2/webhooks/${data.id}`, { key: apiKey, body: { secret: rotated } }), 200);
      assert.equal(patched.secret, rotated);
      const [after] = await rowsOf<{ secret_sealed: string }>(api, sql`select secret_sealed from webhooks where id = ${data.id}`);
      assert.ok(!after!.secret_sealed.includes(rotated));
      assert.equal(api.runtime.ctx.secrets.open(after!.secret_sealed), rotated);
    });

    test('one webhook per subscriber URL and user (409); another user may use the same URL', async () => {
      const first = await api.createUser();
      const second = await api.createUser();
      const body = minimal();
      expectStatus(await api.request('POST', '/v2/webhooks', { key: first.apiKey, body }), 201);
      const again = await api.request('POST', '/v2/webhooks', { key: first.apiKey, body: { ...body, triggers: ['BOOKING_PAID'] } });
      assert.equal(again.status, 409, again.text);
      assert.equal(again.body.error.code, 'ConflictException');
      assert.equal(again.body.error.message, 'Webhook with this subscriber url already exists for this user');
      expectStatus(await api.request('POST', '/v2/webhooks', { key: second.apiKey, body }), 201);

      const other = expectStatus(await api.request('POST', '/v2/webhooks', { key: first.apiKey, body: minimal() }), 201);
      const moved = await api.request('PATCH', `/v2/webhooks/${other.id}`, { key: first.apiKey, body: { subscriberUrl: body.subscriberUrl } });
      assert.equal(moved.status, 409, moved.text);
      assert.equal(moved.body.error.message, 'Webhook with this subscriber url already exists for this user');
      // Its own URL again is no conflict.
      expectStatus(await api.request('PATCH', `/v2/webhooks/${other.id}`, { key: first.apiKey, body: { subscriberUrl: other.subscriberUrl } }), 200);
    });

    test('concurrent creates of one subscriber URL: exactly one succeeds, the others are 409', async () => {
      const { apiKey } = await api.createUser();
      const body = minimal();
      const answers = await Promise.all(Array.from({ length: 16 }, () => api.request('POST', '/v2/webhooks', { key: apiKey, body })));
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, ...Array(15).fill(409)], answers.map((answer) => answer.text).join('\n'));
      assert.equal((expectStatus(await api.request('GET', '/v2/webhooks', { key: apiKey }), 200) as unknown[]).length, 1);
    });

    test('PATCH changes only what is sent; null removes the template and the secret; an empty body changes nothing', async () => {
      const { user, apiKey } = await api.createUser();
      const created = expectStatus(await api.request('POST', '/v2/webhooks', { key: apiKey, body: minimal({ payloadTemplate: TEMPLATE, secret: 's1' }) }), 201);
      const path = `/v2/webhooks/${created.id}`;
      const unchanged = expectStatus(await api.request('PATCH', path, { key: apiKey, body: {} }), 200);
      assert.deepEqual(unchanged, created);

      const url = nextUrl();
      const patched = expectStatus(await api.request('PATCH', path, { key: apiKey, body: { active: false, triggers: ['MEETING_ENDED', 'OOO_CREATED'], subscriberUrl: url } }), 200);
      assert.deepEqual(patched, { ...created, active: false, triggers: ['MEETING_ENDED', 'OOO_CREATED'], subscriberUrl: url, userId: user.id });

      const cleared = expectStatus(await api.request('PATCH', path, { key: apiKey, body: { payloadTemplate: null, secret: null, version: '2021-10-20' } }), 200);
      assert.deepEqual(cleared, { ...patched, payloadTemplate: null, secret: null });
      assert.deepEqual(expectStatus(await api.request('GET', path, { key: apiKey }), 200), cleared);
    });

    test('DELETE returns the deleted webhook; it is gone afterwards', async () => {
      const { apiKey } = await api.createUser();
      const created = expectStatus(await api.request('POST', '/v2/webhooks', { key: apiKey, body: minimal({ secret: 'bye' }) }), 201);
      const deleted = expectStatus(await api.request('DELETE', `/v2/webhooks/${created.id}`, { key: apiKey }), 200);
      assert.deepEqual(deleted, created);
      const gone = await api.request('GET', `/v2/webhooks/${created.id}`, { key: apiKey });
      assert.equal(gone.status, 404, gone.text);
      assert.equal(gone.body.error.message, `Webhook (${created.id}) not found`);
      assert.equal((await api.request('DELETE', `/v2/webhooks/${created.id}`, { key: apiKey })).status, 404);
      assert.deepEqual(expectStatus(await api.request('GET', '/v2/webhooks', { key: apiKey }), 200), []);
    });

    test("another user's webhook is refused with 403, a missing one is 404; the system admin may manage it (the reference's guard)", async () => {
      const owner = await api.createUser();
      const stranger = await api.createUser();
      const created = expectStatus(await api.request('POST', '/v2/webhooks', { key: owner.apiKey, body: minimal() }), 201);
      const path = `/v2/webhooks/${created.id}`;
      for (const [method, body] of [['GET'], ['PATCH', { active: false }], ['DELETE']] as const) {
        const response = await api.request(method, path, { key: stranger.apiKey, ...(body ? { body } : {}) });
        assert.equal(response.status, 403, `${method}: ${response.text}`);
        assert.equal(response.body.error.code, 'ForbiddenException');
        assert.equal(response.body.error.message, 'Forbidden resource');
      }
      assert.deepEqual(expectStatus(await api.request('GET', '/v2/webhooks', { key: stranger.apiKey }), 200), [], "a list shows only the caller's");
      assert.deepEqual(expectStatus(await api.request('GET', path, { key: owner.apiKey }), 200), created, 'unchanged');

      const missing = await api.request('GET', '/v2/webhooks/2000000000', { key: stranger.apiKey });
      assert.equal(missing.status, 404, missing.text);
      assert.equal(missing.body.error.message, 'Webhook (2000000000) not found');
      for (const method of ['PATCH', 'DELETE']) {
        assert.equal((await api.request(method, '/v2/webhooks/2000000000', { key: stranger.apiKey, ...(method === 'PATCH' ? { body: {} } : {}) })).status, 404);
      }
      assert.equal((await api.request('GET', '/v2/webhooks/abc', { key: owner.apiKey })).status, 400);

      assert.deepEqual(expectStatus(await api.request('GET', path, { key: ADMIN_API_KEY }), 200), created);
      const byAdmin = expectStatus(await api.request('PATCH', path, { key: ADMIN_API_KEY, body: { active: false } }), 200);
      assert.deepEqual(byAdmin, { ...created, active: false });
    });

    test('an event-type webhook is not reachable as a user webhook (403)', async () => {
      const user = await api.createUser();
      const collection = await eventTypeLevel.collection(user);
      const created = expectStatus(await api.request('POST', collection, { key: user.apiKey, body: minimal() }), 201);
      const response = await api.request('GET', `/v2/webhooks/${created.id}`, { key: user.apiKey });
      assert.equal(response.status, 403, response.text);
      assert.deepEqual(expectStatus(await api.request('GET', '/v2/webhooks', { key: user.apiKey }), 200), []);
    });
  });

  describe('event-type webhooks (/v2/event-types/{eventTypeId}/webhooks)', () => {
    test('create, read, update, delete one and delete all, with the exact output', async () => {
      const user = await api.createUser();
      const eventType = await createdEventType(api, user.apiKey);
      const collection = `/v2/event-types/${eventType.id}/webhooks`;
      const subscriberUrl = nextUrl();
      const body = { subscriberUrl, active: true, triggers: ['BOOKING_CREATED', 'BOOKING_RESCHEDULED', 'BOOKING_CANCELLED'], payloadTemplate: TEMPLATE, secret: 'et-secret' };
      const created = expectStatus(await api.request('POST', collection, { key: user.apiKey, body }), 201);
      assert.deepEqual(created, { id: created.id, ...body, version: '2021-10-20', eventTypeId: eventType.id });
      assert.deepEqual(expectStatus(await api.request('GET', `${collection}/${created.id}`, { key: user.apiKey }), 200), created);

      const patched = expectStatus(await api.request('PATCH', `${collection}/${created.id}`, { key: user.apiKey, body: { active: false, payloadTemplate: null } }), 200);
      assert.deepEqual(patched, { ...created, active: false, payloadTemplate: null });

      const second = expectStatus(await api.request('POST', collection, { key: user.apiKey, body: minimal() }), 201);
      assert.deepEqual(second, { id: second.id, subscriberUrl: second.subscriberUrl, active: true, triggers: ['BOOKING_CREATED'], payloadTemplate: null, secret: null, version: '2021-10-20', eventTypeId: eventType.id });
      assert.deepEqual(expectStatus(await api.request('GET', collection, { key: user.apiKey }), 200), [patched, second]);

      const deleted = expectStatus(await api.request('DELETE', `${collection}/${second.id}`, { key: user.apiKey }), 200);
      assert.deepEqual(deleted, second);
      assert.equal((await api.request('GET', `${collection}/${second.id}`, { key: user.apiKey })).status, 404);

      expectStatus(await api.request('POST', collection, { key: user.apiKey, body: minimal() }), 201);
      assert.equal(expectStatus(await api.request('DELETE', collection, { key: user.apiKey }), 200), '2 webhooks deleted');
      assert.deepEqual(expectStatus(await api.request('GET', collection, { key: user.apiKey }), 200), []);
      const none = await api.request('DELETE', collection, { key: user.apiKey });
      assert.deepEqual(none.body, { status: 'success', data: '0 webhooks deleted' });
    });

    test('delete all removes only that event type\'s webhooks', async () => {
      const user = await api.createUser();
      const one = `/v2/event-types/${(await createdEventType(api, user.apiKey)).id}/webhooks`;
      const two = `/v2/event-types/${(await createdEventType(api, user.apiKey)).id}/webhooks`;
      expectStatus(await api.request('POST', one, { key: user.apiKey, body: minimal() }), 201);
      const kept = expectStatus(await api.request('POST', two, { key: user.apiKey, body: minimal() }), 201);
      const mine = expectStatus(await api.request('POST', '/v2/webhooks', { key: user.apiKey, body: minimal() }), 201);
      assert.equal(expectStatus(await api.request('DELETE', one, { key: user.apiKey }), 200), '1 webhooks deleted');
      assert.deepEqual(expectStatus(await api.request('GET', two, { key: user.apiKey }), 200), [kept]);
      assert.deepEqual(expectStatus(await api.request('GET', '/v2/webhooks', { key: user.apiKey }), 200), [mine]);
    });

    test('one webhook per subscriber URL and event type (409); other event types and the user level may reuse it', async () => {
      const user = await api.createUser();
      const one = `/v2/event-types/${(await createdEventType(api, user.apiKey)).id}/webhooks`;
      const two = `/v2/event-types/${(await createdEventType(api, user.apiKey)).id}/webhooks`;
      const body = minimal();
      expectStatus(await api.request('POST', one, { key: user.apiKey, body }), 201);
      const again = await api.request('POST', one, { key: user.apiKey, body });
      assert.equal(again.status, 409, again.text);
      assert.equal(again.body.error.message, 'Webhook with this subscriber url already exists for this event type');
      expectStatus(await api.request('POST', two, { key: user.apiKey, body }), 201);
      expectStatus(await api.request('POST', '/v2/webhooks', { key: user.apiKey, body }), 201);
    });

    test("another user's event type is refused with 403 on every route; an unknown one is 404", async () => {
      const owner = await api.createUser();
      const stranger = await api.createUser();
      const eventType = await createdEventType(api, owner.apiKey);
      const collection = `/v2/event-types/${eventType.id}/webhooks`;
      const created = expectStatus(await api.request('POST', collection, { key: owner.apiKey, body: minimal() }), 201);
      const calls: [string, string, unknown?][] = [
        ['POST', collection, minimal()],
        ['GET', collection],
        ['DELETE', collection],
        ['GET', `${collection}/${created.id}`],
        ['PATCH', `${collection}/${created.id}`, { active: false }],
        ['DELETE', `${collection}/${created.id}`],
      ];
      for (const [method, path, body] of calls) {
        const response = await api.request(method, path, { key: stranger.apiKey, ...(body ? { body } : {}) });
        assert.equal(response.status, 403, `${method} ${path}: ${response.text}`);
        assert.equal(response.body.error.code, 'ForbiddenException');
        assert.equal(response.body.error.message, `User (${stranger.user.id}) is not the owner of event type (${eventType.id})`);
      }
      assert.deepEqual(expectStatus(await api.request('GET', collection, { key: owner.apiKey }), 200), [created], 'nothing changed');

      for (const [method, path, body] of calls) {
        const response = await api.request(method, path.replace(`/event-types/${eventType.id}/`, '/event-types/2000000000/'), { key: owner.apiKey, ...(body ? { body } : {}) });
        assert.equal(response.status, 404, `${method} ${path}: ${response.text}`);
        assert.equal(response.body.error.message, 'Event type (2000000000) not found');
      }
    });

    test('a webhook of another event type is 403, a user webhook 400, a missing one 404', async () => {
      const user = await api.createUser();
      const one = `/v2/event-types/${(await createdEventType(api, user.apiKey)).id}/webhooks`;
      const twoId = (await createdEventType(api, user.apiKey)).id;
      const two = `/v2/event-types/${twoId}/webhooks`;
      const onFirst = expectStatus(await api.request('POST', one, { key: user.apiKey, body: minimal() }), 201);
      const userLevelWebhook = expectStatus(await api.request('POST', '/v2/webhooks', { key: user.apiKey, body: minimal() }), 201);
      for (const [method, body] of [['GET'], ['PATCH', { active: false }], ['DELETE']] as const) {
        const other = await api.request(method, `${two}/${onFirst.id}`, { key: user.apiKey, ...(body ? { body } : {}) });
        assert.equal(other.status, 403, other.text);
        assert.equal(other.body.error.message, `Webhook (${onFirst.id}) is not associated with event type (${twoId})`);
        const notEventType = await api.request(method, `${two}/${userLevelWebhook.id}`, { key: user.apiKey, ...(body ? { body } : {}) });
        assert.equal(notEventType.status, 400, notEventType.text);
        assert.equal(notEventType.body.error.message, `Webhook (${userLevelWebhook.id}) is not associated with an event type`);
        const missing = await api.request(method, `${two}/2000000000`, { key: user.apiKey, ...(body ? { body } : {}) });
        assert.equal(missing.status, 404, missing.text);
        assert.equal(missing.body.error.message, 'Webhook (2000000000) not found');
      }
      assert.deepEqual(expectStatus(await api.request('GET', `${one}/${onFirst.id}`, { key: user.apiKey }), 200), onFirst, 'unchanged');
    });

    test("deleting the event type deletes its webhooks", async () => {
      const user = await api.createUser();
      const eventType = await createdEventType(api, user.apiKey);
      const created = expectStatus(await api.request('POST', `/v2/event-types/${eventType.id}/webhooks`, { key: user.apiKey, body: minimal() }), 201);
      expectStatus(await api.request('DELETE', `/v2/event-types/${eventType.id}`, { key: user.apiKey, version: EVENT_TYPE_VERSION }), 200);
      assert.deepEqual(await rowsOf(api, sql`select id from webhooks where id = ${created.id}`), []);
    });
  });

  describe('paging (take 1-250, default 25; skip >= 0)', () => {
    for (const level of [userLevel, eventTypeLevel]) {
      test(`${level.name} webhooks are listed oldest first, 25 by default`, async () => {
        const user = await api.createUser();
        const collection = await level.collection(user);
        const ids: number[] = [];
        for (let i = 0; i < 27; i++) ids.push(expectStatus(await api.request('POST', collection, { key: user.apiKey, body: minimal() }), 201).id);
        const ofPage = async (query: string) => (expectStatus(await api.request('GET', `${collection}${query}`, { key: user.apiKey }), 200) as any[]).map((webhook) => webhook.id);
        assert.deepEqual(await ofPage(''), ids.slice(0, 25));
        assert.deepEqual(await ofPage('?take=2'), ids.slice(0, 2));
        assert.deepEqual(await ofPage('?take=2&skip=2'), ids.slice(2, 4));
        assert.deepEqual(await ofPage('?skip=25'), ids.slice(25));
        assert.deepEqual(await ofPage('?take=250'), ids);
        assert.deepEqual(await ofPage('?skip=30'), []);
        for (const [query, field] of [['?take=0', 'take'], ['?take=251', 'take'], ['?skip=-1', 'skip'], ['?take=x', 'take']]) {
          assertNamesField(await api.request('GET', `${collection}${query}`, { key: user.apiKey }), field!, query!);
        }
      });
    }
  });

  describe('validation: every rule names its field', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['no subscriberUrl', { subscriberUrl: undefined }, 'subscriberUrl'],
      ['a subscriberUrl that is not a URL', { subscriberUrl: 'not a url' }, 'subscriberUrl'],
      ['a non-http scheme', { subscriberUrl: 'ftp://hooks.example.com/x' }, 'subscriberUrl'],
      ['a javascript: URL', { subscriberUrl: 'javascript:alert(1)' }, 'subscriberUrl'],
      ['credentials in the URL', { subscriberUrl: 'https://user:pw@hooks.example.com/x' }, 'subscriberUrl'],
      ['a subscriberUrl that is not a string', { subscriberUrl: 42 }, 'subscriberUrl'],
      ['no active', { active: undefined }, 'active'],
      ['active not a boolean', { active: 'yes' }, 'active'],
      ['no triggers', { triggers: undefined }, 'triggers'],
      ['triggers not an array', { triggers: 'BOOKING_CREATED' }, 'triggers'],
      ['empty triggers', { triggers: [] }, 'triggers'],
      ['an unknown trigger', { triggers: ['BOOKING_CREATED', 'BOOKING_CONFIRMED'] }, 'triggers'],
      ['a trigger twice', { triggers: ['BOOKING_CREATED', 'BOOKING_PAID', 'BOOKING_CREATED'] }, 'triggers'],
      ['ROUTING_FORM_FALLBACK_HIT (team event types and OAuth clients only)', { triggers: ['ROUTING_FORM_FALLBACK_HIT'] }, 'triggers'],
      ['WRONG_ASSIGNMENT_REPORT (team event types and OAuth clients only)', { triggers: ['WRONG_ASSIGNMENT_REPORT'] }, 'triggers'],
      ['INSTANT_MEETING_ACCEPTED (team event types only)', { triggers: ['BOOKING_CREATED', 'INSTANT_MEETING_ACCEPTED'] }, 'triggers'],
      ['an unknown version', { version: '2024-01-01' }, 'version'],
      ['an unrenderable template (unbalanced braces)', { payloadTemplate: '{"a":"{{title}"}' }, 'payloadTemplate'],
      ['an unrenderable template (not a path)', { payloadTemplate: 'name={{organizer-name}}' }, 'payloadTemplate'],
      ['a JSON template that is not JSON', { payloadTemplate: '{"a": {{title}} ,}' }, 'payloadTemplate'],
      ['a template that is not a string', { payloadTemplate: 7 }, 'payloadTemplate'],
      ['a secret that is not a string', { secret: 12345 }, 'secret'],
    ];

    for (const level of [userLevel, eventTypeLevel]) {
      test(`${level.name} create: ${cases.length} rules`, async () => {
        const user = await api.createUser();
        const collection = await level.collection(user);
        for (const [what, fields, field] of cases) {
          const response = await api.request('POST', collection, { key: user.apiKey, body: minimal(fields) });
          assertNamesField(response, field, `${level.name} create, ${what}`);
          assert.match(response.body.error.message, new RegExp(field), what);
        }
        assert.deepEqual(expectStatus(await api.request('GET', collection, { key: user.apiKey }), 200), [], 'nothing was created');
      });

      test(`${level.name} update: the same rules for each field sent`, async () => {
        const user = await api.createUser();
        const collection = await level.collection(user);
        const created = expectStatus(await api.request('POST', collection, { key: user.apiKey, body: minimal() }), 201);
        for (const [what, fields, field] of cases) {
          const sent = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
          if (Object.keys(sent).length === 0) continue; // "missing" is no error on PATCH
          assertNamesField(await api.request('PATCH', `${collection}/${created.id}`, { key: user.apiKey, body: sent }), field, `${level.name} update, ${what}`);
        }
        for (const field of ['subscriberUrl', 'active', 'triggers', 'version']) {
          assertNamesField(await api.request('PATCH', `${collection}/${created.id}`, { key: user.apiKey, body: { [field]: null } }), field, `${field}: null`);
        }
        assert.deepEqual(expectStatus(await api.request('GET', `${collection}/${created.id}`, { key: user.apiKey }), 200), created, 'unchanged');
      });
    }

    test('the level refusal says where the trigger is available', async () => {
      const user = await api.createUser();
      const response = await api.request('POST', '/v2/webhooks', { key: user.apiKey, body: minimal({ triggers: ['ROUTING_FORM_FALLBACK_HIT'] }) });
      assert.equal(response.status, 400);
      assert.equal(response.body.error.message, 'triggers includes ROUTING_FORM_FALLBACK_HIT: that trigger is only available for team event-type and OAuth-client webhooks');
    });

    test('unknown body properties are dropped, not stored', async () => {
      const user = await api.createUser();
      const data = expectStatus(await api.request('POST', '/v2/webhooks', { key: user.apiKey, body: minimal({ eventTypeId: 5, userId: 999, id: 1, appId: 'zapier' }) }), 201);
      assert.equal(data.userId, user.user.id);
      assert.notEqual(data.id, 1);
      const [row] = await rowsOf<{ event_type_id: number | null; owner_kind: string }>(api, sql`select event_type_id, owner_kind from webhooks where id = ${data.id}`);
      assert.deepEqual(row, { event_type_id: null, owner_kind: 'user' });
    });
  });

  describe('credentials and Idempotency-Key', () => {
    test('every route answers 401 without credentials', async () => {
      const calls: [string, string][] = [
        ['POST', '/v2/webhooks'], ['GET', '/v2/webhooks'], ['GET', '/v2/webhooks/1'], ['PATCH', '/v2/webhooks/1'], ['DELETE', '/v2/webhooks/1'],
        ['POST', '/v2/event-types/1/webhooks'], ['GET', '/v2/event-types/1/webhooks'], ['DELETE', '/v2/event-types/1/webhooks'],
        ['GET', '/v2/event-types/1/webhooks/1'], ['PATCH', '/v2/event-types/1/webhooks/1'], ['DELETE', '/v2/event-types/1/webhooks/1'],
      ];
      for (const [method, path] of calls) {
        const response = await api.request(method, path, method === 'POST' || method === 'PATCH' ? { body: minimal() } : {});
        assert.equal(response.status, 401, `${method} ${path}: ${response.text}`);
        assert.equal(response.body.error.code, 'UnauthorizedException');
      }
      assert.equal((await api.request('GET', '/v2/webhooks', { key: 'svc_not-a-key' })).status, 401);
    });

    for (const level of [userLevel, eventTypeLevel]) {
      test(`${level.name} create with an Idempotency-Key: a retry replays the first answer and creates nothing more`, async () => {
        const user = await api.createUser();
        const collection = await level.collection(user);
        const body = minimal({ secret: 'idem' });
        const headers = { 'idempotency-key': `create-webhook-${level.ownerField}-${urlCounter}` };
        const first = await api.request('POST', collection, { key: user.apiKey, body, headers });
        expectStatus(first, 201);
        assert.equal(first.headers.get('idempotent-replayed'), null);
        const retry = await api.request('POST', collection, { key: user.apiKey, body, headers });
        assert.equal(retry.status, 201, retry.text);
        assert.equal(retry.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(retry.body, first.body);
        assert.equal(retry.body.data.secret, 'idem');
        assert.equal((expectStatus(await api.request('GET', collection, { key: user.apiKey }), 200) as unknown[]).length, 1);
        // The kept answer holds the secret: it is stored sealed, never in clear.
        const kept = await api.runtime.ctx.database.db.execute(sql`select response_body::text as body from idempotency_keys where key = ${headers['idempotency-key']}`);
        const stored = (kept as unknown as { rows: { body: string }[] }).rows.map((row) => row.body);
        assert.equal(stored.length, 1);
        assert.ok(!stored[0]!.includes('idem') && !stored[0]!.includes('subscriberUrl'), stored[0]);

        const reused = await api.request('POST', collection, { key: user.apiKey, body: { ...body, active: false }, headers });
        assert.equal(reused.status, 422, reused.text);
        // Without a key, the same body is a duplicate subscriber URL.
        assert.equal((await api.request('POST', collection, { key: user.apiKey, body })).status, 409);
      });
    }

    test('DELETE with an Idempotency-Key replays the deleted webhook', async () => {
      const user = await api.createUser();
      const created = expectStatus(await api.request('POST', '/v2/webhooks', { key: user.apiKey, body: minimal() }), 201);
      const headers = { 'idempotency-key': `delete-webhook-${created.id}` };
      const first = await api.request('DELETE', `/v2/webhooks/${created.id}`, { key: user.apiKey, headers });
      const retry = await api.request('DELETE', `/v2/webhooks/${created.id}`, { key: user.apiKey, headers });
      assert.deepEqual([first.status, retry.status, retry.headers.get('idempotent-replayed')], [200, 200, 'true']);
      assert.deepEqual(retry.body, first.body);
    });
  });
});

describe('webhook subscriber addresses with SVC_ALLOW_PRIVATE_WEBHOOKS=0', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp({ SVC_ALLOW_PRIVATE_WEBHOOKS: '0' });
  });
  after(() => api.close());

  const privateUrls = [
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://10.1.2.3/hook',
    'http://192.168.1.10/hook',
    'http://172.16.5.5/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://0.0.0.0/hook',
  ];

  test('loopback, private and link-local subscribers are refused at both levels, on create and update', async () => {
    const user = await api.createUser();
    const eventType = await createdEventType(api, user.apiKey);
    const collections = ['/v2/webhooks', `/v2/event-types/${eventType.id}/webhooks`];
    for (const collection of collections) {
      for (const subscriberUrl of privateUrls) {
        const response = await api.request('POST', collection, { key: user.apiKey, body: minimal({ subscriberUrl }) });
        assertNamesField(response, 'subscriberUrl', `${collection} ${subscriberUrl}`);
      }
      // A public address (an IP literal: no DNS needed) is accepted, and cannot be moved inside.
      const created = expectStatus(await api.request('POST', collection, { key: user.apiKey, body: minimal({ subscriberUrl: 'https://93.184.216.34/hook' }) }), 201);
      assertNamesField(await api.request('PATCH', `${collection}/${created.id}`, { key: user.apiKey, body: { subscriberUrl: 'http://127.0.0.1:9/hook' } }), 'subscriberUrl', 'update to loopback');
      assert.equal(expectStatus(await api.request('GET', `${collection}/${created.id}`, { key: user.apiKey }), 200).subscriberUrl, 'https://93.184.216.34/hook');
    }
  });
});
