// Size bounds of booking-form answers: a long-text (textarea) answer at most 1000 characters (the
// reference's textarea limit), other text answers 5000, multi-valued answers 100 items, and all of
// bookingFieldsResponses 64 KiB of JSON; beyond them a 400 names the field and nothing is booked.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertNamesField, createEventType, createHost, type Host } from '../slots/helpers.js';
import { book, booked } from './helpers.js';

// 2027-01-04 is a Monday; the New York host works 14:00Z-22:00Z in January.
const at = (day: string, time: string) => `2027-01-${day}T${time}:00.000Z`;

describe('booking answer sizes', () => {
  let api: TestApp;
  let host: Host;
  let eventType: any;
  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => Date.parse('2027-01-01T12:00:00Z') });
    host = await createHost(api, 'America/New_York');
    eventType = await createEventType(api, host, {
      bookingFields: [
        { type: 'text', slug: 'company', label: 'Company', required: false },
        { type: 'textarea', slug: 'story', label: 'Story', required: false },
        { type: 'multiemail', slug: 'cc', label: 'Copies', required: false },
      ],
    });
  });
  after(() => api.close());

  async function bookingCount(): Promise<number> {
    const result = await api.runtime.ctx.database.db.execute(sql`select count(*)::int as n from bookings`);
    return (result as unknown as { rows: { n: number }[] }).rows[0]!.n;
  }

  test('answers at their bounds are booked and kept whole', async () => {
    const answers = { notes: 'n'.repeat(1000), story: 's'.repeat(1000), company: 'c'.repeat(5000), cc: Array.from({ length: 100 }, (_, i) => `cc${i}@example.com`) };
    const data = await booked(api, { eventTypeId: eventType.id, start: at('04', '15:00'), bookingFieldsResponses: answers });
    assert.deepEqual([data.bookingFieldsResponses.notes, data.bookingFieldsResponses.story, data.bookingFieldsResponses.company, data.bookingFieldsResponses.cc], [answers.notes, answers.story, answers.company, answers.cc]);
  });

  test('one character or item over a bound answers 400 naming the field, without echoing the answer', async () => {
    const before = await bookingCount();
    for (const [slug, value, message] of [
      ['notes', 'n'.repeat(1001), 'bookingFieldsResponses.notes must be at most 1000 characters long (it has 1001)'],
      ['story', 's'.repeat(100_000), 'bookingFieldsResponses.story must be at most 1000 characters long (it has 100000)'],
      ['company', 'c'.repeat(5001), 'bookingFieldsResponses.company must be at most 5000 characters long (it has 5001)'],
      ['cc', Array.from({ length: 101 }, (_, i) => `cc${i}@example.com`), 'bookingFieldsResponses.cc must have at most 100 items (it has 101)'],
    ] as const) {
      const response = await book(api, { eventTypeId: eventType.id, start: at('05', '15:00'), bookingFieldsResponses: { [slug]: value } });
      assertNamesField(response, `bookingFieldsResponses.${slug}`);
      assert.equal(response.body.error.message, message);
      assert.ok(response.text.length < 2000, 'the answer is not sent back');
    }
    assert.equal(await bookingCount(), before);
  });

  test('answers to fields the form lacks count toward the 64 KiB of bookingFieldsResponses', async () => {
    const extra = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`extra${i}`, 'x'.repeat(4000)]));
    const response = await book(api, { eventTypeId: eventType.id, start: at('05', '16:00'), bookingFieldsResponses: { notes: 'hi', ...extra } });
    assertNamesField(response, 'bookingFieldsResponses');
    assert.match(response.body.error.message, /^bookingFieldsResponses must be at most 65536 characters long as JSON in all/);
    // Under the total, answers the form lacks are dropped as before.
    const data = await booked(api, { eventTypeId: eventType.id, start: at('05', '16:00'), bookingFieldsResponses: { notes: 'hi', extra: 'x'.repeat(4000) } });
    assert.deepEqual([data.bookingFieldsResponses.notes, data.bookingFieldsResponses.extra], ['hi', undefined]);
  });
});
