// Team event-type, organization and OAuth-client subscriptions below their routes (teams,
// organizations and OAuth clients are later issues): the service keeps each owner's subscriptions
// apart and checks the triggers of each level, and an event whose audience names the owner is
// delivered, signed, through the same emission and worker as a booking's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DomainError } from '../../src/lib/errors.js';
import { findSubscriptions, type WebhookAudience } from '../../src/modules/webhooks/webhook-deliveries.repository.js';
import { emitWebhookEvent } from '../../src/modules/webhooks/webhook-emission.js';
import type { WebhookLevel } from '../../src/modules/webhooks/webhook-triggers.js';
import * as service from '../../src/modules/webhooks/webhooks.service.js';
import { created as createdEventType } from '../event-types/helpers.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertSigned, deliveriesOf, type Receiver, startReceiver } from './helpers.js';

const noAudience: WebhookAudience = { userIds: [], eventTypeIds: [], teamIds: [], organizationIds: [], oauthClientIds: [] };

describe('webhook subscriptions of teams, organizations and OAuth clients', () => {
  let api: TestApp;
  let receiver: Receiver;
  before(async () => {
    api = await createTestApp();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await api.close();
  });
  const database = () => api.runtime.ctx.database;
  const deps = (): service.WebhookDeps => ({ config: api.config, secrets: api.runtime.ctx.secrets });
  const caller = { id: 1, role: 'USER' as const };

  async function create(level: WebhookLevel, owner: service.WebhookOwner, input: service.WebhookInput) {
    const prepared = await service.prepareCreate(deps(), level, input);
    return database().transaction((tx) => service.createWebhook(tx, deps(), { level, owner, caller }, prepared));
  }

  // Team event types will be event types like any other: two real rows stand in for them.
  const eventTypeIds: number[] = [];
  before(async () => {
    const { apiKey } = await api.createUser();
    for (let i = 0; i < 2; i++) eventTypeIds.push((await createdEventType(api, apiKey)).id);
  });

  const scopes: { level: WebhookLevel; owner: service.WebhookOwner; other: service.WebhookOwner; levelOnly: string; refused: string; othersSee: 'not_found' | 'forbidden' }[] = [
    { level: 'teamEventType', owner: { kind: 'eventType', eventTypeId: 0 }, other: { kind: 'eventType', eventTypeId: 0 }, levelOnly: 'INSTANT_MEETING_ACCEPTED', refused: 'NOT_A_TRIGGER', othersSee: 'forbidden' },
    { level: 'organization', owner: { kind: 'organization', organizationId: 7 }, other: { kind: 'organization', organizationId: 8 }, levelOnly: 'BOOKING_PAID', refused: 'WRONG_ASSIGNMENT_REPORT', othersSee: 'not_found' },
    { level: 'oauthClient', owner: { kind: 'oauthClient', oauthClientId: 'client-a' }, other: { kind: 'oauthClient', oauthClientId: 'client-b' }, levelOnly: 'ROUTING_FORM_FALLBACK_HIT', refused: 'INSTANT_MEETING_ACCEPTED', othersSee: 'forbidden' },
  ];

  for (const { level, owner: ownerTemplate, other: otherTemplate, levelOnly, refused, othersSee } of scopes) {
    test(`${level}: create, list, update and delete within the owner; another owner is refused (an event type's as the reference: 403); triggers as the level allows`, async () => {
      const withEventType = (template: service.WebhookOwner, index: number): service.WebhookOwner => (template.kind === 'eventType' ? { kind: 'eventType', eventTypeId: eventTypeIds[index]! } : template);
      const owner = withEventType(ownerTemplate, 0);
      const other = withEventType(otherTemplate, 1);
      const url = `${receiver.url}/${level}`;
      const made = await create(level, owner, { subscriberUrl: url, active: true, triggers: ['BOOKING_CREATED', levelOnly], secret: 'shh' });
      assert.deepEqual([made.owner, made.triggers, made.secret], [owner, ['BOOKING_CREATED', levelOnly], 'shh']);

      await assert.rejects(
        service.prepareCreate(deps(), level, { subscriberUrl: `${url}/x`, active: true, triggers: [refused] }),
        (error: unknown) => error instanceof DomainError && error.kind === 'bad_request' && JSON.stringify(error.details).includes('"property":"triggers"'),
      );
      await assert.rejects(create(level, owner, { subscriberUrl: url, active: true, triggers: ['BOOKING_CREATED'] }), (error: unknown) => error instanceof DomainError && error.kind === 'conflict');

      const otherScope = { level, owner: other, caller };
      const mine = { level, owner, caller };
      assert.deepEqual((await service.listWebhooks(database().db, deps(), mine, { skip: 0, take: 25 })).map((hook) => hook.id), [made.id]);
      assert.deepEqual(await service.listWebhooks(database().db, deps(), otherScope, { skip: 0, take: 25 }), []);
      const refusedToOthers = (error: unknown) => error instanceof DomainError && error.kind === othersSee;
      await assert.rejects(service.getWebhook(database().db, deps(), otherScope, made.id), refusedToOthers);
      await assert.rejects(database().transaction((tx) => service.deleteWebhook(tx, deps(), otherScope, made.id)), refusedToOthers);

      const changes = await service.prepareUpdate(deps(), level, { active: false });
      const updated = await database().transaction((tx) => service.updateWebhook(tx, deps(), mine, made.id, changes));
      assert.equal(updated.active, false);
      assert.equal((await database().transaction((tx) => service.deleteWebhook(tx, deps(), mine, made.id))).id, made.id);
      await assert.rejects(service.getWebhook(database().db, deps(), mine, made.id), (error: unknown) => error instanceof DomainError && error.kind === 'not_found');
    });
  }

  test('an event whose audience names a team, an organization or an OAuth client reaches their subscriptions, signed, and no others', async () => {
    const team = await create('teamEventType', { kind: 'team', teamId: 31 }, { subscriberUrl: `${receiver.url}/team`, active: true, triggers: ['BOOKING_CREATED'], secret: 'team-secret' });
    const org = await create('organization', { kind: 'organization', organizationId: 32 }, { subscriberUrl: `${receiver.url}/org`, active: true, triggers: ['BOOKING_CREATED'], secret: 'org-secret' });
    const client = await create('oauthClient', { kind: 'oauthClient', oauthClientId: 'client-33' }, { subscriberUrl: `${receiver.url}/client`, active: true, triggers: ['BOOKING_CREATED'], secret: 'client-secret' });
    const bystander = await create('organization', { kind: 'organization', organizationId: 34 }, { subscriberUrl: `${receiver.url}/bystander`, active: true, triggers: ['BOOKING_CREATED'] });

    const audience = { ...noAudience, teamIds: [31], organizationIds: [32], oauthClientIds: ['client-33'] };
    assert.deepEqual((await findSubscriptions(database().db, audience, ['BOOKING_CANCELLED'])).length, 0, 'a trigger nobody lists matches nothing');
    await database().transaction(async (tx) => {
      const subscriptions = await findSubscriptions(tx, audience, ['BOOKING_CREATED']);
      assert.deepEqual(subscriptions.map((subscription) => subscription.id), [team.id, org.id, client.id]);
      await emitWebhookEvent(tx, { trigger: 'BOOKING_CREATED', createdAt: new Date(), bookingEventId: null, payload: { uid: 'levels-1', title: 'Levels' } }, subscriptions);
    });

    const requests = await receiver.waitFor(3, 10_000, (request) => request.json?.payload?.uid === 'levels-1');
    const byPath = new Map(requests.map((request) => [request.url, request]));
    assertSigned(byPath.get('/hook/team')!, 'team-secret');
    assertSigned(byPath.get('/hook/org')!, 'org-secret');
    assertSigned(byPath.get('/hook/client')!, 'client-secret');
    assert.equal(byPath.get('/hook/team')!.json.triggerEvent, 'BOOKING_CREATED');
    assert.equal((await deliveriesOf(database().db, bystander.id)).length, 0);
  });
});
