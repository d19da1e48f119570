import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONSENT_STATE_TTL_MS, openState, sealState } from '../../src/lib/sealed-state.js';
import { parseEncryptionKey, secretBox } from '../../src/lib/secrets.js';

test('a consent state opens for its own purpose until it expires, and never when svc did not seal it', () => {
  const box = secretBox(parseEncryptionKey('ab'.repeat(32))!);
  const now = Date.UTC(2026, 10, 29, 12);
  const sealed = sealState(box, 'conferencing-connect', { userId: 7, returnTo: 'https://app.example/done' }, now);
  assert.ok(!sealed.includes('app.example'), 'nothing readable in it');
  assert.deepEqual(openState(box, 'conferencing-connect', sealed, now + CONSENT_STATE_TTL_MS - 1), {
    userId: 7,
    returnTo: 'https://app.example/done',
    purpose: 'conferencing-connect',
    expiresAt: now + CONSENT_STATE_TTL_MS,
  });
  assert.equal(openState(box, 'conferencing-connect', sealed, now + CONSENT_STATE_TTL_MS), null, 'expired');
  assert.equal(openState(box, 'calendar-connect', sealed, now), null, "another flow's state");
  assert.equal(openState(secretBox(parseEncryptionKey('cd'.repeat(32))!), 'conferencing-connect', sealed, now), null, "another svc's key");
  assert.equal(openState(box, 'conferencing-connect', JSON.stringify({ userId: 7, purpose: 'conferencing-connect', expiresAt: now + 1 }), now), null, 'plain JSON');
  assert.equal(openState(box, 'conferencing-connect', box.seal('null'), now), null);
  assert.equal(openState(box, 'conferencing-connect', box.seal(JSON.stringify({ purpose: 'conferencing-connect', expiresAt: String(now + 1) })), now), null, 'an expiry that is not a number');
});
