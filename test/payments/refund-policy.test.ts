// Refunds on cancelling a paid booking: each policy for attendee and host cancellations, and the 'days'
// deadline counted in the host's zone in calendar or business days, across DST changes (Berlin, Lord Howe's
// 30-minute one), a +05:45 zone, weekends and year ends. Every expected instant is absolute UTC: the suite
// runs under an unusual TZ (Pacific/Chatham) and nothing may depend on it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type RefundPolicy, refundDeadline, refundOnCancel } from '../../src/modules/payments/refund-policy.js';

const at = (text: string) => new Date(text);
const DAY = 86_400_000;
const calendarDays = (days: number): RefundPolicy => ({ kind: 'days', days, calendarDays: true });
const businessDays = (days: number): RefundPolicy => ({ kind: 'days', days, calendarDays: false });
const NEVER: RefundPolicy = { kind: 'never', days: null, calendarDays: true };
const ALWAYS: RefundPolicy = { kind: 'always', days: null, calendarDays: true };

const deadlineOf = (policy: RefundPolicy, start: string, timeZone: string) => refundDeadline(policy, at(start), timeZone)?.toISOString();

describe('refundOnCancel: the policies', () => {
  const start = at('2026-03-16T09:00:00Z'); // Monday 10:00 in Berlin
  const cancel = (policy: RefundPolicy, cancelledAt: string, cancelledBy: 'attendee' | 'host') =>
    refundOnCancel({ policy, start, timeZone: 'Europe/Berlin', cancelledAt: at(cancelledAt), cancelledBy });

  test("'never' refunds no attendee, however early", () => {
    assert.deepEqual(cancel(NEVER, '2026-01-01T00:00:00Z', 'attendee'), { refund: false, reason: 'cancelled by the attendee; the policy never refunds' });
  });

  test("'always' refunds every attendee, even after the start", () => {
    assert.deepEqual(cancel(ALWAYS, '2026-03-16T09:00:00Z', 'attendee'), { refund: true, reason: 'cancelled by the attendee; the policy always refunds' });
    assert.equal(cancel(ALWAYS, '2026-03-17T00:00:00Z', 'attendee').refund, true);
  });

  test("'days' refunds an attendee before the deadline and not after", () => {
    assert.deepEqual(cancel(calendarDays(2), '2026-03-13T09:00:00Z', 'attendee'), {
      refund: true,
      reason: 'cancelled 3 days before the start; the policy refunds up to 2 days before (until 2026-03-14T10:00:00.000+01:00)',
    });
    assert.deepEqual(cancel(calendarDays(2), '2026-03-15T05:00:00Z', 'attendee'), {
      refund: false,
      reason: 'cancelled 1 day 4 hours before the start; the policy refunds up to 2 days before (until 2026-03-14T10:00:00.000+01:00)',
    });
    assert.deepEqual(cancel(businessDays(1), '2026-03-16T09:30:00Z', 'attendee'), {
      refund: false,
      reason: 'cancelled 30 minutes after the start; the policy refunds up to 1 business day before (until 2026-03-13T10:00:00.000+01:00)',
    });
  });

  test('a host cancellation refunds in full under every policy, at any time', () => {
    for (const policy of [NEVER, ALWAYS, calendarDays(2), businessDays(3)]) {
      for (const cancelledAt of ['2026-01-01T00:00:00Z', '2026-03-16T08:59:59.999Z', '2026-03-16T10:00:00Z']) {
        const result = cancel(policy, cancelledAt, 'host');
        assert.equal(result.refund, true, `${policy.kind} ${cancelledAt}`);
        assert.equal(result.reason, 'cancelled by the host; the booker is refunded in full whatever the policy');
      }
    }
    // The host's refund does not depend on the policy being well formed.
    assert.equal(cancel({ kind: 'days', days: null, calendarDays: true }, '2026-03-16T00:00:00Z', 'host').refund, true);
  });

  test('cancelling exactly at the deadline still refunds; a millisecond later does not', () => {
    const deadline = refundDeadline(businessDays(1), start, 'Europe/Berlin')!;
    assert.equal(deadline.toISOString(), '2026-03-13T09:00:00.000Z');
    const attendee = (cancelledAt: Date) => refundOnCancel({ policy: businessDays(1), start, timeZone: 'Europe/Berlin', cancelledAt, cancelledBy: 'attendee' });
    assert.equal(attendee(deadline).refund, true);
    assert.equal(attendee(new Date(deadline.getTime() - 1)).refund, true);
    assert.equal(attendee(new Date(deadline.getTime() + 1)).refund, false);
  });

  test("an attendee's cancellation under a malformed 'days' policy, or at an invalid instant, throws", () => {
    for (const days of [null, 0, -1, 1.5, Number.NaN]) {
      assert.throws(() => cancel({ kind: 'days', days, calendarDays: true }, '2026-03-01T00:00:00Z', 'attendee'), RangeError, String(days));
    }
    assert.throws(() => cancel(calendarDays(1), 'not a date', 'attendee'), RangeError);
    assert.throws(() => refundOnCancel({ policy: calendarDays(1), start, timeZone: 'Mars/Olympus', cancelledAt: start, cancelledBy: 'attendee' }), RangeError);
  });
});

describe('refundDeadline', () => {
  test("'always' and 'never' have none", () => {
    assert.equal(refundDeadline(ALWAYS, at('2026-03-16T09:00:00Z'), 'Europe/Berlin'), null);
    assert.equal(refundDeadline(NEVER, at('2026-03-16T09:00:00Z'), 'Europe/Berlin'), null);
  });

  test('calendar days keep the wall-clock time across the March DST change in Berlin', () => {
    // Sunday March 29 2026 is the change (02:00 CET -> 03:00 CEST): 10:00 is 08:00Z from then, 09:00Z before.
    assert.equal(deadlineOf(calendarDays(1), '2026-03-29T08:00:00Z', 'Europe/Berlin'), '2026-03-28T09:00:00.000Z'); // 23 hours
    assert.equal(deadlineOf(calendarDays(1), '2026-03-30T08:00:00Z', 'Europe/Berlin'), '2026-03-29T08:00:00.000Z'); // 24 hours
    assert.equal(deadlineOf(calendarDays(2), '2026-03-30T08:00:00Z', 'Europe/Berlin'), '2026-03-28T09:00:00.000Z'); // 47 hours
  });

  test('calendar days across the October change in Berlin: 25 hours', () => {
    assert.equal(deadlineOf(calendarDays(1), '2026-10-25T09:00:00Z', 'Europe/Berlin'), '2026-10-24T08:00:00.000Z');
  });

  test('a wall-clock time the deadline day skips moves forward by the gap; a repeated one takes the earlier instant', () => {
    // Monday 02:30 CEST; Sunday March 29 has no 02:30, so 03:30 CEST.
    assert.equal(deadlineOf(calendarDays(1), '2026-03-30T00:30:00Z', 'Europe/Berlin'), '2026-03-29T01:30:00.000Z');
    // Monday 02:30 CET; Sunday October 25 has 02:30 twice, CEST (00:30Z) first.
    assert.equal(deadlineOf(calendarDays(1), '2026-10-26T01:30:00Z', 'Europe/Berlin'), '2026-10-25T00:30:00.000Z');
  });

  test('business days skip the weekend: a Monday start with 1, 3, 5 and 6 business days', () => {
    const monday = '2026-03-16T09:00:00Z'; // 10:00 CET
    assert.equal(deadlineOf(businessDays(1), monday, 'Europe/Berlin'), '2026-03-13T09:00:00.000Z'); // Friday
    assert.equal(deadlineOf(businessDays(3), monday, 'Europe/Berlin'), '2026-03-11T09:00:00.000Z'); // Wednesday
    assert.equal(deadlineOf(businessDays(5), monday, 'Europe/Berlin'), '2026-03-09T09:00:00.000Z'); // Monday before
    assert.equal(deadlineOf(businessDays(6), monday, 'Europe/Berlin'), '2026-03-06T09:00:00.000Z'); // Friday two weeks before
    // Calendar days for contrast: 1 day before a Monday is the Sunday.
    assert.equal(deadlineOf(calendarDays(1), monday, 'Europe/Berlin'), '2026-03-15T09:00:00.000Z');
  });

  test('a weekend start counts back from the Friday', () => {
    assert.equal(deadlineOf(businessDays(1), '2026-03-14T09:00:00Z', 'Europe/Berlin'), '2026-03-13T09:00:00.000Z'); // Saturday
    assert.equal(deadlineOf(businessDays(1), '2026-03-15T09:00:00Z', 'Europe/Berlin'), '2026-03-13T09:00:00.000Z'); // Sunday
    assert.equal(deadlineOf(businessDays(2), '2026-03-15T09:00:00Z', 'Europe/Berlin'), '2026-03-12T09:00:00.000Z');
  });

  test('business days over a weekend and the DST change: Monday 10:00 CEST -> Friday 10:00 CET', () => {
    assert.equal(deadlineOf(businessDays(1), '2026-03-30T08:00:00Z', 'Europe/Berlin'), '2026-03-27T09:00:00.000Z');
  });

  test('business days agree with stepping back one day at a time, from every weekday, up to 40 days', () => {
    const isWeekend = (dayNo: number) => [0, 6].includes(new Date(dayNo * DAY).getUTCDay());
    const timeOfDay = 13 * 3_600_000 + 7 * 60_000;
    for (let startDay = 20_527; startDay < 20_534; startDay++) {
      // 2026-03-15 (Sunday) to 2026-03-21 (Saturday), 13:07 UTC.
      for (let days = 1; days <= 40; days++) {
        let expected = startDay;
        for (let left = days; left > 0; ) {
          expected -= 1;
          if (!isWeekend(expected)) left -= 1;
        }
        const deadline = refundDeadline(businessDays(days), new Date(startDay * DAY + timeOfDay), 'UTC')!;
        assert.equal(deadline.getTime(), expected * DAY + timeOfDay, `start day ${startDay}, ${days} business days`);
      }
    }
  });

  test('Asia/Kathmandu (+05:45): the local date, not the UTC date, counts', () => {
    // Monday January 5 2026 02:00 in Kathmandu is still Sunday in UTC.
    const start = '2026-01-04T20:15:00Z';
    assert.equal(deadlineOf(businessDays(1), start, 'Asia/Kathmandu'), '2026-01-01T20:15:00.000Z'); // Friday 02:00 local
    assert.equal(deadlineOf(calendarDays(2), start, 'Asia/Kathmandu'), '2026-01-02T20:15:00.000Z'); // Saturday 02:00 local
  });

  test('Australia/Lord_Howe: the 30-minute DST change, its gap and its overlap', () => {
    // October 4 2026, 02:00 +10:30 -> 02:30 +11. Monday 10:00 +11 back to Saturday 10:00 +10:30: 47.5 hours.
    assert.equal(deadlineOf(calendarDays(2), '2026-10-04T23:00:00Z', 'Australia/Lord_Howe'), '2026-10-02T23:30:00.000Z');
    // 02:15 does not exist on October 4: 02:45 +11.
    assert.equal(deadlineOf(calendarDays(1), '2026-10-04T15:15:00Z', 'Australia/Lord_Howe'), '2026-10-03T15:45:00.000Z');
    // April 5 2026, 02:00 +11 -> 01:30 +10:30: 01:45 happens twice, the earlier at +11.
    assert.equal(deadlineOf(calendarDays(1), '2026-04-05T15:15:00Z', 'Australia/Lord_Howe'), '2026-04-04T14:45:00.000Z');
  });

  test('month and year edges', () => {
    // Friday January 1 2027, 10:00 in New York.
    assert.equal(deadlineOf(calendarDays(2), '2027-01-01T15:00:00Z', 'America/New_York'), '2026-12-30T15:00:00.000Z');
    assert.equal(deadlineOf(businessDays(1), '2027-01-01T15:00:00Z', 'America/New_York'), '2026-12-31T15:00:00.000Z');
    // January 1 2027 00:30 in Tokyo is December 31 in UTC.
    assert.equal(deadlineOf(calendarDays(2), '2026-12-31T15:30:00Z', 'Asia/Tokyo'), '2026-12-29T15:30:00.000Z');
    // A leap day.
    assert.equal(deadlineOf(calendarDays(1), '2028-03-01T09:00:00Z', 'UTC'), '2028-02-29T09:00:00.000Z');
  });

  test('seconds and milliseconds of the start are kept', () => {
    assert.equal(deadlineOf(calendarDays(1), '2026-03-16T09:00:12.345Z', 'Europe/Berlin'), '2026-03-15T09:00:12.345Z');
  });
});
