/**
 * The shared benchmark input ../shared/bench/roundrobin-50-hosts.json (50 round-robin hosts in 10
 * zones over March 2026, both DST changes), read as it is by bench/roundrobin-50.ts: the reference
 * answers 2,335 slots and leaves out the one that starts inside the window and ends after it; svc
 * lists it too. Skipped, with the reason, when the file is absent.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EXPECTED_SLOTS, EXTRA_SLOT_START, loadRoundRobin50, REFERENCE_SLOTS } from '../../bench/roundrobin-50.js';
import { computeSlots } from '../../src/scheduling/slots.js';
import { compare } from '../support/slot-queries.js';

const input = loadRoundRobin50();
const skip = 'absent' in input ? `benchmark input missing: ${input.absent}` : false;

describe('the shared 50-host round-robin input', { skip }, () => {
  const query = 'query' in input ? input.query : null;

  test(`${EXPECTED_SLOTS} slots: the reference's ${REFERENCE_SLOTS} and the last one, which starts inside the window and ends after it`, () => {
    const slots = computeSlots(query!);
    assert.equal(slots.length, EXPECTED_SLOTS);
    const windowEnd = query!.to; // the window's last millisecond + 1
    const pastTheWindow = slots.filter((slot) => slot.end > windowEnd);
    assert.deepEqual(
      pastTheWindow.map((slot) => new Date(slot.start).toISOString()),
      [EXTRA_SLOT_START],
    );
    assert.equal(new Date(slots.at(-1)!.start).toISOString(), EXTRA_SLOT_START);
    for (const slot of slots) {
      assert.ok(slot.start >= query!.from && slot.start < query!.to, `start ${new Date(slot.start).toISOString()} outside the window`);
      assert.equal(slot.end - slot.start, 30 * 60_000);
      assert.ok(slot.hostIds.length >= 1 && slot.hostIds.every((id, i) => i === 0 || slot.hostIds[i - 1]! < id), 'hostIds: at least one, ascending');
    }
    // Starts on the 15-minute grid and none before the notice ends (30 min after `now`).
    assert.ok(slots.every((slot) => slot.start % (15 * 60_000) === 0));
  });

  test('the engine gives the oracle\'s answer on it, host by host', () => {
    compare(query!, computeSlots);
  });
});
