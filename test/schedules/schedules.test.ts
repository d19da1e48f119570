import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';

const V = '2024-06-11';
const WEEKDAYS_9_TO_5 = [{ days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'], startTime: '09:00', endTime: '17:00' }];

describe('schedules (svc-api-version 2024-06-11)', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  const create = (key: string, body: Record<string, unknown>) =>
    api.request('POST', '/v2/schedules', { key, version: V, body: { name: 'Work', timeZone: 'Europe/Rome', isDefault: false, ...body } });

  test('creates with the reference defaults, and the first schedule becomes the default', async () => {
    const { user, apiKey } = await api.createUser();
    const response = await create(apiKey, { name: 'Work hours', isDefault: false });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(response.body, {
      status: 'success',
      data: { id: response.body.data.id, ownerId: user.id, name: 'Work hours', timeZone: 'Europe/Rome', availability: WEEKDAYS_9_TO_5, isDefault: true, overrides: [] },
    });
    const me = await api.request('GET', '/v2/me', { key: apiKey });
    assert.equal(me.body.data.defaultScheduleId, response.body.data.id);
  });

  test('availability and overrides round-trip, including a day off, a split day and "23:59"', async () => {
    const { apiKey } = await api.createUser();
    const availability = [
      { days: ['Monday', 'Wednesday'], startTime: '08:30', endTime: '12:15' },
      { days: ['Saturday'], startTime: '20:00', endTime: '23:59' },
    ];
    const overrides = [
      { date: '2026-03-08', startTime: '00:00', endTime: '00:00' },
      { date: '2026-03-29', startTime: '09:00', endTime: '11:00' },
      { date: '2026-03-29', startTime: '14:00', endTime: '16:30' },
    ];
    const created = await create(apiKey, { availability, overrides, timeZone: 'Asia/Kathmandu' });
    assert.equal(created.status, 201, created.text);
    const read = await api.request('GET', `/v2/schedules/${created.body.data.id}`, { key: apiKey, version: V });
    assert.deepEqual(read.body.data.availability, availability);
    assert.deepEqual(read.body.data.overrides, overrides);
    assert.equal(read.body.data.timeZone, 'Asia/Kathmandu');
  });

  test('each malformed rule is a 400 naming the field, and nothing is written', async () => {
    const { apiKey } = await api.createUser();
    const cases: [Record<string, unknown>, string][] = [
      [{ availability: [{ days: ['Monday'], startTime: '9:00', endTime: '17:00' }] }, 'availability.0.startTime'],
      [{ availability: [{ days: ['Monday'], startTime: '09:00', endTime: '24:30' }] }, 'availability.0.endTime'],
      [{ availability: [{ days: ['Monday'], startTime: '17:00', endTime: '09:00' }] }, 'availability.0.endTime'],
      [{ availability: [{ days: ['Monday'], startTime: '09:00', endTime: '09:00' }] }, 'availability.0.endTime'],
      [{ availability: [{ days: ['Funday'], startTime: '09:00', endTime: '17:00' }] }, 'availability.0.days.0'],
      [{ availability: [{ days: ['Monday', 'Monday'], startTime: '09:00', endTime: '17:00' }] }, 'availability.0.days'],
      [{ availability: [{ days: [], startTime: '09:00', endTime: '17:00' }] }, 'availability.0.days'],
      [{ overrides: [{ date: '2026-02-30', startTime: '09:00', endTime: '10:00' }] }, 'overrides.0.date'],
      [{ overrides: [{ date: '26-02-03', startTime: '09:00', endTime: '10:00' }] }, 'overrides.0.date'],
      [{ overrides: [{ date: '2026-05-01', startTime: '11:00', endTime: '10:00' }] }, 'overrides.0.endTime'],
      [{ overrides: [{ date: '2026-05-01', startTime: '09:00', endTime: '12:00' }, { date: '2026-05-01', startTime: '11:00', endTime: '13:00' }] }, 'overrides.1.date'],
      [{ overrides: [{ date: '2026-05-01', startTime: '09:00', endTime: '12:00' }, { date: '2026-05-01', startTime: '09:00', endTime: '12:00' }] }, 'overrides.1.date'],
      [{ overrides: [{ date: '2026-05-01', startTime: '00:00', endTime: '00:00' }, { date: '2026-05-01', startTime: '09:00', endTime: '12:00' }] }, 'overrides.1.date'],
      [{ timeZone: 'Europe/Atlantis' }, 'timeZone'],
      [{ timeZone: '+05:30' }, 'timeZone'],
      [{ name: '' }, 'name'],
      [{ isDefault: 'yes' }, 'isDefault'],
    ];
    for (const [body, field] of cases) {
      const response = await create(apiKey, body);
      assert.equal(response.status, 400, `${JSON.stringify(body)} -> ${response.status}`);
      const properties = response.body.error.details.errors.map((error: { property: string }) => error.property);
      assert.ok(properties.includes(field), `${JSON.stringify(body)} should name ${field}, named ${properties}`);
    }
    const missing = await api.request('POST', '/v2/schedules', { key: apiKey, version: V, body: {} });
    assert.deepEqual(missing.body.error.details.errors.map((e: { property: string }) => e.property).sort(), ['isDefault', 'name', 'timeZone']);
    const list = await api.request('GET', '/v2/schedules', { key: apiKey, version: V });
    assert.deepEqual(list.body.data, []);
  });

  test('isDefault moves the default; isDefault false on the default is ignored with a 200, as the reference does', async () => {
    const { apiKey } = await api.createUser();
    const first = (await create(apiKey, { name: 'A' })).body.data;
    const second = (await create(apiKey, { name: 'B', isDefault: true })).body.data;
    assert.equal(second.isDefault, true);
    const list = (await api.request('GET', '/v2/schedules', { key: apiKey, version: V })).body.data;
    assert.deepEqual(list.map((s: { name: string; isDefault: boolean }) => [s.name, s.isDefault]), [['A', false], ['B', true]]);
    assert.equal((await api.request('GET', '/v2/schedules/default', { key: apiKey, version: V })).body.data.id, second.id);
    // The reference's update (schedules_2024_06_11 service) only acts on isDefault: true; false changes nothing.
    const unset = await api.request('PATCH', `/v2/schedules/${second.id}`, { key: apiKey, version: V, body: { isDefault: false, name: 'B2' } });
    assert.equal(unset.status, 200, unset.text);
    assert.deepEqual([unset.body.data.name, unset.body.data.isDefault], ['B2', true]);
    assert.equal((await api.request('GET', '/v2/me', { key: apiKey })).body.data.defaultScheduleId, second.id);
    const moved = await api.request('PATCH', `/v2/schedules/${first.id}`, { key: apiKey, version: V, body: { isDefault: true, name: 'A2' } });
    assert.equal(moved.status, 200);
    assert.deepEqual([moved.body.data.name, moved.body.data.isDefault], ['A2', true]);
    assert.equal((await api.request('GET', '/v2/me', { key: apiKey })).body.data.defaultScheduleId, first.id);
  });

  test('PATCH changes only what it is sent', async () => {
    const { apiKey } = await api.createUser();
    const created = (await create(apiKey, { overrides: [{ date: '2026-12-24', startTime: '00:00', endTime: '00:00' }] })).body.data;
    const patched = await api.request('PATCH', `/v2/schedules/${created.id}`, { key: apiKey, version: V, body: { timeZone: 'Australia/Lord_Howe' } });
    assert.deepEqual(patched.body.data, { ...created, timeZone: 'Australia/Lord_Howe' });
    const rules = [{ days: ['Sunday'], startTime: '10:00', endTime: '14:00' }];
    const again = await api.request('PATCH', `/v2/schedules/${created.id}`, { key: apiKey, version: V, body: { availability: rules, overrides: [] } });
    assert.deepEqual(again.body.data.availability, rules);
    assert.deepEqual(again.body.data.overrides, []);
  });

  test('deleting the default hands it to the oldest remaining schedule, then to none', async () => {
    const { apiKey } = await api.createUser();
    const a = (await create(apiKey, { name: 'A' })).body.data;
    const b = (await create(apiKey, { name: 'B' })).body.data;
    const c = (await create(apiKey, { name: 'C', isDefault: true })).body.data;
    const deleted = await api.request('DELETE', `/v2/schedules/${c.id}`, { key: apiKey, version: V });
    assert.deepEqual([deleted.status, deleted.body], [200, { status: 'success' }]);
    assert.equal((await api.request('GET', '/v2/schedules/default', { key: apiKey, version: V })).body.data.id, a.id);
    await api.request('DELETE', `/v2/schedules/${a.id}`, { key: apiKey, version: V });
    assert.equal((await api.request('GET', '/v2/me', { key: apiKey })).body.data.defaultScheduleId, b.id);
    await api.request('DELETE', `/v2/schedules/${b.id}`, { key: apiKey, version: V });
    const none = await api.request('GET', '/v2/schedules/default', { key: apiKey, version: V });
    assert.deepEqual([none.status, none.body.data], [200, null]);
    assert.equal((await api.request('DELETE', `/v2/schedules/${b.id}`, { key: apiKey, version: V })).status, 400, 'the reference answers 400 here');
  });

  test("another user's schedule: 403 as the reference; a missing one: 404", async () => {
    const owner = await api.createUser();
    const other = await api.createUser();
    const schedule = (await create(owner.apiKey, {})).body.data;
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'mine now' }], ['DELETE', undefined]] as const) {
      const response = await api.request(method, `/v2/schedules/${schedule.id}`, { key: other.apiKey, version: V, body });
      assert.equal(response.status, 403, method);
      assert.equal(response.body.error.code, 'ForbiddenException');
    }
    assert.deepEqual((await api.request('GET', '/v2/schedules', { key: other.apiKey, version: V })).body.data, []);
    assert.equal((await api.request('GET', `/v2/schedules/${schedule.id}`, { key: owner.apiKey, version: V })).body.data.name, 'Work');
    assert.equal((await api.request('GET', '/v2/schedules/999999', { key: owner.apiKey, version: V })).status, 404);
    const stolen = await api.request('PATCH', '/v2/me', { key: other.apiKey, body: { defaultScheduleId: schedule.id } });
    assert.equal(stolen.status, 403);
  });

  test('PATCH /v2/me can pick one of the caller\'s schedules as default', async () => {
    const { apiKey } = await api.createUser();
    const a = (await create(apiKey, { name: 'A' })).body.data;
    const b = (await create(apiKey, { name: 'B' })).body.data;
    const response = await api.request('PATCH', '/v2/me', { key: apiKey, body: { defaultScheduleId: b.id } });
    assert.equal(response.body.data.defaultScheduleId, b.id);
    assert.equal((await api.request('GET', `/v2/schedules/${a.id}`, { key: apiKey, version: V })).body.data.isDefault, false);
    assert.equal((await api.request('GET', `/v2/schedules/${b.id}`, { key: apiKey, version: V })).body.data.isDefault, true);
  });

  test('a user created with a time zone gets the reference default schedule; without one, none', async () => {
    const withZone = await api.createUser({ timeZone: 'America/New_York' });
    const schedule = await api.request('GET', '/v2/schedules/default', { key: withZone.apiKey, version: V });
    assert.equal(withZone.user.defaultScheduleId, schedule.body.data.id);
    assert.deepEqual(
      { name: schedule.body.data.name, timeZone: schedule.body.data.timeZone, availability: schedule.body.data.availability },
      { name: 'Default schedule', timeZone: 'America/New_York', availability: WEEKDAYS_9_TO_5 },
    );
    const withoutZone = await api.createUser();
    assert.equal(withoutZone.user.defaultScheduleId, null);
    assert.equal((await api.request('GET', '/v2/schedules/default', { key: withoutZone.apiKey, version: V })).body.data, null);
  });

  test('without svc-api-version, or with an unknown one, the same 2024-06-11 shape is served', async () => {
    const { apiKey } = await api.createUser();
    const created = (await create(apiKey, {})).body.data;
    for (const version of [undefined, '2024-04-15', '2099-01-01']) {
      const response = await api.request('GET', `/v2/schedules/${created.id}`, { key: apiKey, ...(version ? { version } : {}) });
      assert.deepEqual(response.body.data, created, String(version));
    }
  });
});
