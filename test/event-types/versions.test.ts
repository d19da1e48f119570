import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findEventTypeById } from '../../src/modules/event-types/event-types.repository.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { body, created, V } from './helpers.js';

const INVITES = {
  host: { mode: 'custom', template: '<p>Meeting with <b>{ATTENDEE}</b> at {Location}</p>' },
  guest: { mode: 'inherit' },
};

describe('event types: calendarInvites, versions and the OpenAPI document', () => {
  let api: TestApp;
  let key: string;
  const stored = async (id: number) => (await findEventTypeById(api.runtime.ctx.database.db, id))!.calendarInvites;
  before(async () => {
    api = await createTestApp();
    key = (await api.createUser({ username: `inv-${Math.random().toString(36).slice(2, 8)}` })).apiKey;
  });
  after(() => api.close());

  test('calendarInvites is stored (tags stripped) and never returned by any event-type read', async () => {
    const eventType = await created(api, key, { calendarInvites: INVITES });
    assert.deepEqual(await stored(eventType.id), { host: { mode: 'custom', template: 'Meeting with {ATTENDEE} at {Location}' }, guest: { mode: 'inherit', template: null } });
    const reads = [
      eventType,
      (await api.request('GET', `/v2/event-types/${eventType.id}`, { key, version: V })).body.data,
      ...(await api.request('GET', '/v2/event-types', { key, version: V })).body.data,
      (await api.request('PATCH', `/v2/event-types/${eventType.id}`, { key, version: V, body: { calendarInvites: { guest: { mode: 'standard' } } } })).body.data,
    ];
    for (const output of reads) assert.ok(!('calendarInvites' in output), `no calendarInvites in ${JSON.stringify(output).slice(0, 80)}`);
    const text = (await api.request('GET', `/v2/event-types/${eventType.id}`, { key, version: V })).text;
    assert.ok(!text.includes('Meeting with'), 'the template never leaks');
  });

  test('with 2026-06-12 too; a PATCH changes only the audience it names; an emptied custom template becomes standard', async () => {
    const response = await api.request('POST', '/v2/event-types', { key, version: '2026-06-12', body: body({ calendarInvites: { host: { mode: 'standard' } } }) });
    assert.equal(response.status, 201, response.text);
    const id = response.body.data.id;
    assert.deepEqual(await stored(id), { host: { mode: 'standard', template: null } });
    await api.request('PATCH', `/v2/event-types/${id}`, { key, version: '2026-06-12', body: { calendarInvites: { guest: { mode: 'custom', template: 'Hi {Scheduler}' } } } });
    assert.deepEqual(await stored(id), { host: { mode: 'standard', template: null }, guest: { mode: 'custom', template: 'Hi {Scheduler}' } });
    await api.request('PATCH', `/v2/event-types/${id}`, { key, version: V, body: { calendarInvites: { guest: { mode: 'custom', template: '<br/><i></i>' } } } });
    assert.deepEqual((await stored(id))!.guest, { mode: 'standard', template: null });
  });

  test('under 2024-04-15, another value or no header, calendarInvites is ignored like an unknown property, even when invalid', async () => {
    for (const version of ['2024-04-15', '2099-01-01', undefined]) {
      const response = await api.request('POST', '/v2/event-types', { key, ...(version ? { version } : {}), body: body({ calendarInvites: { host: { mode: 'fancy', template: 1 } } }) });
      assert.equal(response.status, 201, `${version}: ${response.text}`);
      assert.equal(await stored(response.body.data.id), null, String(version));
      const update = await api.request('PATCH', `/v2/event-types/${response.body.data.id}`, { key, ...(version ? { version } : {}), body: { calendarInvites: INVITES } });
      assert.equal(update.status, 200, update.text);
      assert.equal(await stored(response.body.data.id), null, `${version}: PATCH`);
    }
  });

  test('without svc-api-version (or with another value) every route serves the 2024-06-14 shapes', async () => {
    const eventType = await created(api, key, { lengthInMinutes: 60, lengthInMinutesOptions: [30, 60] });
    for (const version of [undefined, '2024-04-15', '2024-09-04', 'not-a-date']) {
      const headers = version ? { version } : {};
      const read = await api.request('GET', `/v2/event-types/${eventType.id}`, { key, ...headers });
      assert.deepEqual(read.body.data, eventType, `GET with ${version}`);
      const update = await api.request('PATCH', `/v2/event-types/${eventType.id}`, { key, ...headers, body: { lengthInMinutes: 30, length: 90 } });
      assert.equal(update.status, 200, update.text);
      assert.deepEqual(update.body.data, { ...eventType, lengthInMinutes: 30 }, `PATCH with ${version}: 2024-06-14 fields apply, 2024-04-15 ones are unknown`);
      await api.request('PATCH', `/v2/event-types/${eventType.id}`, { key, ...headers, body: { lengthInMinutes: 60 } });
    }
    const listed = await api.request('GET', '/v2/event-types', { key });
    assert.ok(listed.body.data.some((item: { id: number }) => item.id === eventType.id));
    const deleted = await api.request('DELETE', `/v2/event-types/${eventType.id}`, { key });
    assert.deepEqual(deleted.body.data, { id: eventType.id, lengthInMinutes: 60, title: eventType.title, slug: eventType.slug });
  });

  test('the OpenAPI document shows the body fields with their enums, and no calendarInvites in the output', async () => {
    const document = (await api.request('GET', '/docs/openapi.json')).body;
    const paths = document.paths;
    const bodyOf = (path: string, method: string) => paths[path][method].requestBody.content['application/json'].schema;
    for (const [path, method] of [['/v2/event-types', 'post'], ['/v2/event-types/{eventTypeId}', 'patch']] as const) {
      const properties = bodyOf(path, method).properties;
      for (const field of ['lengthInMinutes', 'title', 'slug', 'bookingFields', 'locations', 'bookingWindow', 'seats', 'recurrence', 'confirmationPolicy', 'svcVideoSettings', 'calendarInvites', 'disableRescheduling', 'privateNoteTemplate']) {
        assert.ok(properties[field], `${method} ${path} documents ${field}`);
      }
      assert.ok(properties.interfaceLanguage.enum.includes('pt-BR') && properties.interfaceLanguage.enum.includes(''), 'interfaceLanguage enum');
      assert.equal(properties.interfaceLanguage.enum.length, 38);
      assert.deepEqual(properties.bookingWindow.properties.type.enum, ['businessDays', 'calendarDays', 'range']);
      assert.deepEqual(properties.confirmationPolicy.properties.type.enum, ['always', 'time']);
      assert.deepEqual(properties.recurrence.properties.frequency.enum, ['yearly', 'monthly', 'weekly']);
      assert.deepEqual(properties.privateNoteMode.enum, ['duplicate_event']);
      assert.ok(properties.locations.items.properties.integration.enum.includes('svc-video'));
      assert.ok(properties.bookingFields.items.properties.type.enum.includes('multiemail'));
      assert.deepEqual(properties.calendarInvites.properties.host.properties.mode.enum, ['inherit', 'standard', 'custom']);
      assert.equal(properties.bookingLimitsDuration.properties.day.multipleOf, 15);
    }
    assert.deepEqual(bodyOf('/v2/event-types', 'post').required.sort(), ['lengthInMinutes', 'slug', 'title']);
    const ref: string = paths['/v2/event-types'].post.responses['201'].content['application/json'].schema.properties.data.$ref;
    const output = document.components.schemas[ref.split('/').pop()!].properties;
    assert.ok(output.bookingFields && output.svcVideoSettings && output.users, 'the output schema is documented');
    assert.ok(!('calendarInvites' in output), 'calendarInvites is not part of the output');
    assert.deepEqual(output.bookingWindow.properties.type.enum, ['businessDays', 'calendarDays', 'range']);
    assert.deepEqual(paths['/v2/event-types'].get.parameters.find((p: { name: string }) => p.name === 'sortCreatedAt').schema.enum, ['asc', 'desc']);
  });
});
