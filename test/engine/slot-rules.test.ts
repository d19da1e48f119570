import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DateOverride, WeeklyRule } from '../../src/scheduling/availability-rules.js';
import { fits, planHost, seatUseAt } from '../../src/scheduling/host-availability.js';
import { explainUnavailable, findSlot } from '../../src/scheduling/slot-check.js';
import { type BusyBlock, type HostAvailability, PLAIN_EVENT_RULES, type SlotQuery } from '../../src/scheduling/slot-query.js';
import { computeSlots } from '../../src/scheduling/slots.js';

const MINUTE = 60_000;
const utc = (text: string) => Date.parse(text);
const iso = (ms: number) => new Date(ms).toISOString().replace(':00.000Z', 'Z');
const WEEKDAYS = [1, 2, 3, 4, 5];
const NINE_TO_FIVE: WeeklyRule[] = [{ days: WEEKDAYS, startMinute: 540, endMinute: 1020 }];

function host(timeZone: string, weeklyRules: WeeklyRule[] = NINE_TO_FIVE, busy: BusyBlock[] = [], extra: Partial<HostAvailability> = {}, overrides: DateOverride[] = []): HostAvailability {
  return { userId: 1, fixed: true, schedule: { timeZone, weeklyRules, overrides }, busy, ...extra };
}

/** A 60-minute event type with no rules, queried over one UTC day, for one host in `zone`. */
function query(fields: Partial<SlotQuery> = {}): SlotQuery {
  return {
    now: utc('2026-01-01T00:00Z'),
    from: utc('2026-06-01T00:00Z'),
    to: utc('2026-06-02T00:00Z'),
    ...PLAIN_EVENT_RULES,
    eventTypeId: 7,
    duration: 60,
    organizerTimeZone: fields.hosts?.[0]?.schedule?.timeZone ?? 'UTC',
    weekStart: 0,
    hosts: [host('UTC')],
    limitBookings: [],
    ...fields,
  };
}

const starts = (q: SlotQuery) => computeSlots(q).map((slot) => iso(slot.start));
const booking = (start: string, end: string, fields: Partial<BusyBlock> = {}): BusyBlock => ({
  start: utc(start), end: utc(end), bufferBefore: 0, bufferAfter: 0, source: 'booking', eventTypeId: 99, ...fields,
});

describe('slot engine: time zones and DST', () => {
  test('New York 13:00-18:00 on the spring-forward Sunday gives 17:00Z-21:00Z starts (reference #30021)', () => {
    const q = query({ hosts: [host('America/New_York', [{ days: [0], startMinute: 780, endMinute: 1080 }])], from: utc('2026-03-08T00:00Z'), to: utc('2026-03-09T12:00Z') });
    assert.deepEqual(starts(q), ['2026-03-08T17:00Z', '2026-03-08T18:00Z', '2026-03-08T19:00Z', '2026-03-08T20:00Z', '2026-03-08T21:00Z']);
  });

  test('09:00 New York stays 09:00 local after the November change (reference #10517, #6217)', () => {
    const q = query({ hosts: [host('America/New_York')], from: utc('2026-10-30T00:00Z'), to: utc('2026-11-03T00:00Z') });
    const first = (day: string) => starts(q).find((start) => start.startsWith(day));
    assert.equal(first('2026-10-30'), '2026-10-30T13:00Z');
    assert.equal(first('2026-11-02'), '2026-11-02T14:00Z');
  });

  test('Kolkata hourly slots stay on the host\'s hour, at :30 UTC (reference #10136)', () => {
    const q = query({ hosts: [host('Asia/Kolkata')] });
    assert.deepEqual(starts(q), ['2026-06-01T03:30Z', '2026-06-01T04:30Z', '2026-06-01T05:30Z', '2026-06-01T06:30Z', '2026-06-01T07:30Z', '2026-06-01T08:30Z', '2026-06-01T09:30Z', '2026-06-01T10:30Z']);
  });

  test('Kathmandu (+05:45) and Chatham (+12:45) hours', () => {
    assert.equal(starts(query({ hosts: [host('Asia/Kathmandu')] }))[0], '2026-06-01T03:15Z');
    // Chatham: Monday 13:00 local is 00:15Z on June 1; Tuesday 09:00 local is 20:15Z on June 1.
    const chatham = starts(query({ hosts: [host('Pacific/Chatham')] }));
    assert.deepEqual([chatham[0], chatham[4]], ['2026-06-01T00:15Z', '2026-06-01T20:15Z']);
  });

  test('Lord Howe: a piece spanning the 30-minute shift keeps its grid in absolute time', () => {
    // Open all of Sunday 2026-10-04 (local 02:00 becomes 02:30); hourly slots from 00:00 local (+10:30).
    const q = query({ hosts: [host('Australia/Lord_Howe', [{ days: [0], startMinute: 0, endMinute: 1440 }])], from: utc('2026-10-03T13:30Z'), to: utc('2026-10-04T13:00Z') });
    const list = starts(q);
    assert.equal(list[0], '2026-10-03T13:30Z'); // 00:00 local
    assert.equal(list.length, 23); // a 23.5-hour day holds 23 whole hours
    assert.ok(list.every((start, i) => utc(start.replace('Z', ':00Z')) === utc('2026-10-03T13:30Z') + i * 60 * MINUTE));
  });

  test('the result for a day does not depend on the query window', () => {
    const q = query({ hosts: [host('America/New_York')], from: utc('2026-03-06T00:00Z'), to: utc('2026-03-12T00:00Z'), slotInterval: 45 });
    const all = computeSlots(q);
    const part = computeSlots({ ...q, from: utc('2026-03-09T15:07Z'), to: utc('2026-03-09T19:00Z') });
    assert.deepEqual(part, all.filter((slot) => slot.start >= utc('2026-03-09T15:07Z') && slot.start < utc('2026-03-09T19:00Z')));
  });
});

describe('slot engine: grid and event settings', () => {
  test('slotInterval spaces starts; the event length bounds the last one', () => {
    const q = query({ duration: 60, slotInterval: 45, hosts: [host('UTC', [{ days: [1], startMinute: 540, endMinute: 720 }])] });
    assert.deepEqual(starts(q), ['2026-06-01T09:00Z', '2026-06-01T09:45Z', '2026-06-01T10:30Z']);
  });

  test('offsetStart shifts every start by its minutes', () => {
    const q = query({ duration: 25, offsetStart: 5, hosts: [host('UTC', [{ days: [1], startMinute: 540, endMinute: 630 }])] });
    assert.deepEqual(starts(q), ['2026-06-01T09:05Z', '2026-06-01T09:30Z', '2026-06-01T09:55Z']);
  });

  test('overrides replace the day; "00:00"-"00:00" is a day off', () => {
    const overrides = [{ date: '2026-06-01', startMinute: 0, endMinute: 0 }, { date: '2026-06-02', startMinute: 600, endMinute: 720 }];
    const q = query({ hosts: [host('Europe/Berlin', NINE_TO_FIVE, [], {}, overrides)], organizerTimeZone: 'Europe/Berlin', to: utc('2026-06-03T00:00Z') });
    assert.deepEqual(starts(q), ['2026-06-02T08:00Z', '2026-06-02T09:00Z']);
  });

  test('minimum notice removes early starts but never moves the grid (reference #12137)', () => {
    const q = query({ duration: 30, slotInterval: 45, now: utc('2026-06-01T09:07Z'), minimumBookingNotice: 60, hosts: [host('UTC', [{ days: [1], startMinute: 540, endMinute: 780 }])] });
    assert.deepEqual(starts(q), ['2026-06-01T10:30Z', '2026-06-01T11:15Z', '2026-06-01T12:00Z']);
  });

  test('a notice ending on a DST day shifts nothing on the following days (reference #12137)', () => {
    // New York, every day 09:00-12:00; now is the Saturday before the March change; a day's notice.
    const q = query({
      hosts: [host('America/New_York', [{ days: [0, 1, 2, 3, 4, 5, 6], startMinute: 540, endMinute: 720 }])],
      now: utc('2026-03-07T14:30Z'), minimumBookingNotice: 1440, from: utc('2026-03-07T00:00Z'), to: utc('2026-03-12T00:00Z'),
    });
    const list = starts(q);
    assert.deepEqual(list.filter((start) => start.startsWith('2026-03-08')), ['2026-03-08T15:00Z']); // 11:00 EDT, the first after the notice
    for (const day of ['09', '10', '11']) assert.deepEqual(list.filter((start) => start.startsWith(`2026-03-${day}`)), [`2026-03-${day}T13:00Z`, `2026-03-${day}T14:00Z`, `2026-03-${day}T15:00Z`]);
  });

  test('a start in the past is never offered', () => {
    const q = query({ now: utc('2026-06-01T12:00Z'), hosts: [host('UTC')] });
    assert.deepEqual(starts(q), ['2026-06-01T12:00Z', '2026-06-01T13:00Z', '2026-06-01T14:00Z', '2026-06-01T15:00Z', '2026-06-01T16:00Z']);
  });

  test('showOptimizedSlots restarts the grid after a busy block when that fits more slots', () => {
    const hours = [{ days: [1], startMinute: 540, endMinute: 750 }]; // 09:00-12:30
    const busy = [booking('2026-06-01T09:00Z', '2026-06-01T09:30Z')];
    assert.deepEqual(starts(query({ hosts: [host('UTC', hours, busy)] })), ['2026-06-01T10:00Z', '2026-06-01T11:00Z']);
    assert.deepEqual(starts(query({ showOptimizedSlots: true, hosts: [host('UTC', hours, busy)] })), ['2026-06-01T09:30Z', '2026-06-01T10:30Z', '2026-06-01T11:30Z']);
    // Where shifting gains nothing (09:00-12:00: 09:10 and 10:10 against 10:00 and 11:00), the usual grid stays.
    const shortBusy = [booking('2026-06-01T09:00Z', '2026-06-01T09:10Z')];
    const shorter = [{ days: [1], startMinute: 540, endMinute: 720 }];
    assert.deepEqual(starts(query({ showOptimizedSlots: true, hosts: [host('UTC', shorter, shortBusy)] })), ['2026-06-01T10:00Z', '2026-06-01T11:00Z']);
  });
});

describe('slot engine: busy time and buffers', () => {
  test('a booking of another event type blocks with its own buffers and the queried type\'s', () => {
    // Booked 10:00-11:00 with 15 minutes after it; the queried type wants 10 minutes before.
    const busy = [booking('2026-06-01T10:00Z', '2026-06-01T11:00Z', { bufferAfter: 15 })];
    const q = query({ duration: 30, beforeEventBuffer: 10, hosts: [host('UTC', [{ days: [1], startMinute: 540, endMinute: 780 }], busy)] });
    // 11:00 and 11:15 would start within 11:15 + 10 minutes; 09:30 ends at the booking.
    assert.deepEqual(starts(q), ['2026-06-01T09:00Z', '2026-06-01T09:30Z', '2026-06-01T11:30Z', '2026-06-01T12:00Z', '2026-06-01T12:30Z']);
  });

  test('the queried type\'s after buffer may reach past working hours but not into a booking', () => {
    const busy = [booking('2026-06-01T12:00Z', '2026-06-01T13:00Z')];
    const q = query({ afterEventBuffer: 30, hosts: [host('UTC', [{ days: [1], startMinute: 540, endMinute: 720 }], busy)] });
    assert.deepEqual(starts(q), ['2026-06-01T09:00Z', '2026-06-01T10:00Z']); // 11:00 + 60 + 30 reaches 12:30
  });

  test('calendar events block without buffers of their own; time away is not working time, so buffers reach into it', () => {
    const busy: BusyBlock[] = [{ start: utc('2026-06-01T09:00Z'), end: utc('2026-06-01T10:00Z'), bufferBefore: 0, bufferAfter: 0, source: 'calendar' }];
    const away = [[utc('2026-06-01T14:00Z'), utc('2026-06-02T00:00Z')], [utc('2026-06-01T12:00Z'), utc('2026-06-01T13:00Z')]] as const;
    const q = query({ hosts: [host('UTC', NINE_TO_FIVE, busy, { away })], afterEventBuffer: 30 });
    // 10:00 ends at 11:00 + 30; 11:00's buffer reaches into the time away at 12:00, 13:00 ends where the next stretch away starts.
    assert.deepEqual(starts(q), ['2026-06-01T10:00Z', '2026-06-01T11:00Z', '2026-06-01T13:00Z']);
    // As busy time, the same hours would take the buffered starts with them.
    const asBusy = away.map(([start, end]): BusyBlock => ({ start, end, bufferBefore: 0, bufferAfter: 0, source: 'calendar' }));
    assert.deepEqual(starts(query({ hosts: [host('UTC', NINE_TO_FIVE, [...busy, ...asBusy])], afterEventBuffer: 30 })), ['2026-06-01T10:00Z']);
  });

  test('a start while the host is away is refused as out of office when nothing else stands in the way', () => {
    const away = [[utc('2026-06-01T12:00Z'), utc('2026-06-01T14:00Z')]] as const;
    const q = query({ hosts: [host('UTC', NINE_TO_FIVE, [booking('2026-06-01T13:00Z', '2026-06-01T14:00Z')], { away })] });
    assert.equal(findSlot(q, utc('2026-06-01T12:00Z')), null);
    assert.equal(explainUnavailable(q, utc('2026-06-01T12:00Z')), 'out_of_office');
    // Booked as well: the booking is named (it would refuse the start with the host back).
    assert.equal(explainUnavailable(q, utc('2026-06-01T13:00Z')), 'booked');
    assert.equal(explainUnavailable(q, utc('2026-06-01T11:00Z')), 'not_available', '11:00 is free, yet not a slot: 12:00 is where it ends');
  });

  test('pending bookings block only when their event type says unconfirmed bookings block', () => {
    const pending = (blocksWhilePending: boolean) => [booking('2026-06-01T09:00Z', '2026-06-01T16:00Z', { pending: true, blocksWhilePending })];
    assert.equal(starts(query({ hosts: [host('UTC', NINE_TO_FIVE, pending(false))] })).length, 8);
    assert.deepEqual(starts(query({ hosts: [host('UTC', NINE_TO_FIVE, pending(true))] })), ['2026-06-01T16:00Z']);
  });

  test('rescheduling frees the booking\'s own time and leaves it out of the limits (reference #2668)', () => {
    const own = booking('2026-06-01T09:00Z', '2026-06-01T10:00Z', { bookingUid: 'b-1', eventTypeId: 7 });
    const q = query({ hosts: [host('UTC', NINE_TO_FIVE, [own])], bookingLimitsCount: { day: 1 }, limitBookings: [{ start: own.start, end: own.end, uid: 'b-1' }] });
    assert.deepEqual(starts(q), []);
    const rescheduling = starts({ ...q, ignoreBookingUid: 'b-1' });
    assert.equal(rescheduling.length, 8);
    assert.equal(rescheduling[0], '2026-06-01T09:00Z');
  });
});

describe('slot engine: booking window', () => {
  const everyDay = [{ days: [0, 1, 2, 3, 4, 5, 6], startMinute: 540, endMinute: 600 }];
  const daysWithSlots = (q: SlotQuery) => [...new Set(starts(q).map((start) => start.slice(0, 10)))];
  const week = { from: utc('2026-06-01T00:00Z'), to: utc('2026-06-15T00:00Z') };

  test('calendarDays, not rolling: today plus N days, in the organizer\'s zone', () => {
    const q = query({ ...week, now: utc('2026-06-01T08:00Z'), hosts: [host('UTC', everyDay)], bookingWindow: { type: 'calendarDays', days: 2, rolling: false } });
    assert.deepEqual(daysWithSlots(q), ['2026-06-01', '2026-06-02', '2026-06-03']);
  });

  test('businessDays, not rolling: from a Friday, two business days reach Tuesday', () => {
    const q = query({ ...week, now: utc('2026-06-05T08:00Z'), hosts: [host('UTC', everyDay)], bookingWindow: { type: 'businessDays', days: 2, rolling: false } });
    assert.deepEqual(daysWithSlots(q), ['2026-06-05', '2026-06-06', '2026-06-07', '2026-06-08', '2026-06-09']);
  });

  test('rolling: N days that have slots, skipping a day off', () => {
    const overrides = [{ date: '2026-06-02', startMinute: 0, endMinute: 0 }];
    const q = query({ ...week, now: utc('2026-06-01T08:00Z'), hosts: [host('UTC', everyDay, [], {}, overrides)], bookingWindow: { type: 'calendarDays', days: 3, rolling: true } });
    assert.deepEqual(daysWithSlots(q), ['2026-06-01', '2026-06-03', '2026-06-04']);
    const business = { ...q, bookingWindow: { type: 'businessDays' as const, days: 3, rolling: true } };
    assert.deepEqual(daysWithSlots({ ...business, now: utc('2026-06-04T08:00Z') }), ['2026-06-04', '2026-06-05', '2026-06-06', '2026-06-07', '2026-06-08']);
  });

  test('rolling, round robin: a date whose only slot starts at local midnight counts (Kathmandu, +05:45)', () => {
    // Open 00:00-01:00 local every day; "now" is 17:45 on 05-31 local, so that date's slot has passed.
    const midnightHour = [{ days: [0, 1, 2, 3, 4, 5, 6], startMinute: 0, endMinute: 60 }];
    const hosts = [host('Asia/Kathmandu', midnightHour, [], { userId: 1, fixed: false }), host('Asia/Kathmandu', midnightHour, [], { userId: 2, fixed: false })];
    const q = query({ hosts, now: utc('2026-05-31T12:00Z'), from: utc('2026-05-30T00:00Z'), to: utc('2026-06-08T00:00Z'), bookingWindow: { type: 'calendarDays', days: 3, rolling: true } });
    assert.deepEqual(
      computeSlots(q).map((slot) => [iso(slot.start), slot.hostIds]),
      [['2026-05-31T18:15Z', [1, 2]], ['2026-06-01T18:15Z', [1, 2]], ['2026-06-02T18:15Z', [1, 2]]],
    );
  });

  test('rolling: dates with slots far apart are found beyond the first, short search (St. John\'s, -02:30 in summer)', () => {
    // Open on three dates only, 20 days apart; the short search covers 2 x 2 + 7 = 11 days and finds none.
    const overrides = ['2026-06-21', '2026-07-11', '2026-07-31'].map((date) => ({ date, startMinute: 540, endMinute: 600 }));
    const q = query({
      hosts: [host('America/St_Johns', [], [], {}, overrides)], now: utc('2026-06-01T12:00Z'), from: utc('2026-06-01T00:00Z'), to: utc('2026-08-15T00:00Z'),
      bookingWindow: { type: 'calendarDays', days: 2, rolling: true },
    });
    assert.deepEqual(starts(q), ['2026-06-21T11:30Z', '2026-07-11T11:30Z'], '09:00 local, -02:30 in summer');
  });

  test('a start both outside the window and booked is explained by the window, which is checked first', () => {
    // The next 2 calendar days from 06-01: through 06-03.
    const taken = booking('2026-06-04T09:00Z', '2026-06-04T10:00Z');
    const q = query({ ...week, now: utc('2026-06-01T08:00Z'), hosts: [host('UTC', everyDay, [taken])], bookingWindow: { type: 'calendarDays', days: 2, rolling: false } });
    assert.equal(findSlot(q, utc('2026-06-04T09:00Z')), null);
    assert.equal(explainUnavailable(q, utc('2026-06-04T09:00Z')), 'outside_booking_window');
    assert.equal(explainUnavailable({ ...q, bookingWindow: null }, utc('2026-06-04T09:00Z')), 'booked', 'without the window, the booking is why');
    assert.ok(findSlot(q, utc('2026-06-03T09:00Z')), 'the window\'s last day is in it');
  });

  test('a rolling window is enforced when a start is checked for booking, not only when listing (reference #29729)', () => {
    const q = query({ ...week, now: utc('2026-06-01T08:00Z'), hosts: [host('UTC', everyDay)], bookingWindow: { type: 'calendarDays', days: 2, rolling: true } });
    assert.ok(findSlot(q, utc('2026-06-02T09:00Z')));
    assert.equal(findSlot(q, utc('2026-06-03T09:00Z')), null);
    assert.equal(explainUnavailable(q, utc('2026-06-03T09:00Z')), 'outside_booking_window');
  });

  test('range: whole local dates of the organizer, with each date\'s own offset (not today\'s)', () => {
    // New York: the range starts on a date in daylight saving time although "now" is in winter.
    const q = query({
      from: utc('2026-06-01T00:00Z'), to: utc('2026-06-05T00:00Z'), now: utc('2026-01-15T12:00Z'),
      hosts: [host('America/New_York', [{ days: [0, 1, 2, 3, 4, 5, 6], startMinute: 0, endMinute: 60 }])],
      bookingWindow: { type: 'range', start: '2026-06-02', end: '2026-06-03' },
    });
    assert.deepEqual(starts(q), ['2026-06-02T04:00Z', '2026-06-03T04:00Z']);
  });

  test('the window is evaluated in the organizer\'s zone, whatever the query window', () => {
    // Auckland organizer: at 2026-06-01T20:00Z it is already June 2 there.
    const q = query({
      from: utc('2026-06-01T00:00Z'), to: utc('2026-06-06T00:00Z'), now: utc('2026-06-01T20:00Z'),
      hosts: [host('Pacific/Auckland', everyDay)], bookingWindow: { type: 'calendarDays', days: 1, rolling: false },
    });
    // Dates June 2 and 3 in Auckland; 09:00 there is 21:00Z the day before.
    assert.deepEqual(starts(q), ['2026-06-01T21:00Z', '2026-06-02T21:00Z']);
  });
});

describe('slot engine: booking limits', () => {
  const limitBooking = (start: string, end: string) => ({ start: utc(start), end: utc(end) });

  test('a day count limit closes that local day of the organizer only (reference #5941, #15360)', () => {
    // Berlin organizer (UTC+2): a booking at 23:30 Berlin time on June 1 is 21:30Z.
    const q = query({
      from: utc('2026-06-01T00:00Z'), to: utc('2026-06-03T00:00Z'), hosts: [host('Europe/Berlin')], bookingLimitsCount: { day: 1 },
      limitBookings: [limitBooking('2026-06-01T21:30Z', '2026-06-01T22:00Z')],
    });
    const days = new Set(starts(q).map((start) => start.slice(0, 10)));
    assert.deepEqual([...days], ['2026-06-02']);
  });

  test('a booking crossing local midnight counts in both days', () => {
    const q = query({
      from: utc('2026-06-01T00:00Z'), to: utc('2026-06-03T00:00Z'), hosts: [host('UTC')], bookingLimitsCount: { day: 1 },
      limitBookings: [limitBooking('2026-06-01T23:30Z', '2026-06-02T00:30Z')],
    });
    assert.deepEqual(starts(q), []);
  });

  test('week limits follow the organizer\'s week start', () => {
    // A booking on Sunday June 7: with weeks starting Sunday it fills the week of June 7-13; starting Monday, June 1-7.
    const base = { from: utc('2026-06-01T00:00Z'), to: utc('2026-06-13T00:00Z'), hosts: [host('UTC')], bookingLimitsCount: { week: 1 }, limitBookings: [limitBooking('2026-06-07T10:00Z', '2026-06-07T11:00Z')] };
    const daysOf = (q: SlotQuery) => [...new Set(starts(q).map((start) => start.slice(0, 10)))];
    assert.deepEqual(daysOf(query({ ...base, weekStart: 0 })), ['2026-06-01', '2026-06-02', '2026-06-03', '2026-06-04', '2026-06-05']);
    assert.deepEqual(daysOf(query({ ...base, weekStart: 1 })), ['2026-06-08', '2026-06-09', '2026-06-10', '2026-06-11', '2026-06-12']);
  });

  test('duration limits add the requested length to the booked minutes', () => {
    const base = { hosts: [host('UTC')], bookingLimitsDuration: { day: 90 }, limitBookings: [limitBooking('2026-06-01T09:00Z', '2026-06-01T09:30Z')] };
    assert.equal(starts(query({ ...base, duration: 60 })).length, 8);
    assert.equal(starts(query({ ...base, duration: 75, slotInterval: 60 })).length, 0);
  });

  test('month and year limits use the organizer\'s calendar', () => {
    // Tokyo organizer: 2026-12-31T16:00Z is already January 1 2027 there.
    const base = {
      hosts: [host('Asia/Tokyo', [{ days: [0, 1, 2, 3, 4, 5, 6], startMinute: 540, endMinute: 600 }])],
      from: utc('2026-12-30T00:00Z'), to: utc('2027-01-03T00:00Z'), limitBookings: [limitBooking('2026-12-31T16:00Z', '2026-12-31T17:00Z')],
    };
    assert.deepEqual(starts(query({ ...base, bookingLimitsCount: { year: 1 } })), ['2026-12-30T00:00Z', '2026-12-31T00:00Z']);
    assert.deepEqual(starts(query({ ...base, bookingLimitsCount: { month: 1 } })), ['2026-12-30T00:00Z', '2026-12-31T00:00Z']);
  });
});

describe('slot engine: seats', () => {
  const seatHours = [{ days: [1], startMinute: 540, endMinute: 720 }];
  const seated = (seatsTaken: number, fields: Partial<BusyBlock> = {}) => booking('2026-06-01T10:00Z', '2026-06-01T11:00Z', { eventTypeId: 7, seatsTaken, bookingUid: 'seat-1', ...fields });

  test('a slot with free seats stays listed with its counts; other starts overlapping it are blocked', () => {
    const slots = computeSlots(query({ seatsPerTimeSlot: 3, slotInterval: 30, hosts: [host('UTC', seatHours, [seated(1)])] }));
    assert.deepEqual(slots.map((slot) => [iso(slot.start), slot.seats]), [
      ['2026-06-01T09:00Z', { booked: 0, total: 3, bookingUid: null }],
      ['2026-06-01T10:00Z', { booked: 1, total: 3, bookingUid: 'seat-1' }],
      ['2026-06-01T11:00Z', { booked: 0, total: 3, bookingUid: null }],
    ]);
  });

  test('a full slot disappears; a seat reservation takes a seat', () => {
    assert.deepEqual(starts(query({ seatsPerTimeSlot: 3, hosts: [host('UTC', seatHours, [seated(3)])] })), ['2026-06-01T09:00Z', '2026-06-01T11:00Z']);
    const reservation: BusyBlock = { ...seated(1), source: 'reservation', bookingUid: undefined, seatsTaken: undefined };
    const slots = computeSlots(query({ seatsPerTimeSlot: 3, hosts: [host('UTC', seatHours, [seated(1), reservation])] }));
    assert.deepEqual(slots.find((slot) => iso(slot.start) === '2026-06-01T10:00Z')?.seats, { booked: 2, total: 3, bookingUid: 'seat-1' });
  });

  test('a seated booking blocks other event types fully', () => {
    assert.deepEqual(starts(query({ eventTypeId: 8, hosts: [host('UTC', seatHours, [seated(1)])] })), ['2026-06-01T09:00Z', '2026-06-01T11:00Z']);
  });

  test('joining a seated booking is not a new booking: a week limit of 1 leaves its free seats bookable (reference #17221)', () => {
    const q = query({
      seatsPerTimeSlot: 3, bookingLimitsCount: { week: 1 }, hosts: [host('UTC', seatHours, [seated(1)])],
      limitBookings: [{ start: utc('2026-06-01T10:00Z'), end: utc('2026-06-01T11:00Z'), uid: 'seat-1' }],
    });
    assert.deepEqual(computeSlots(q).map((slot) => [iso(slot.start), slot.seats?.booked]), [['2026-06-01T10:00Z', 1]]);
  });

  test('a seated booking of the same start but another length is no seat to join: it blocks the slot', () => {
    // A 30-minute seated booking at 10:00 (a variable-length event type), and the 60-minute slot at 10:00.
    const short = seated(1, { end: utc('2026-06-01T10:30Z') });
    const slots = computeSlots(query({ seatsPerTimeSlot: 3, hosts: [host('UTC', seatHours, [short])] }));
    assert.deepEqual(slots.map((slot) => iso(slot.start)), ['2026-06-01T09:00Z', '2026-06-01T11:00Z']);
    assert.equal(findSlot(query({ seatsPerTimeSlot: 3, hosts: [host('UTC', seatHours, [short])] }), utc('2026-06-01T10:00Z')), null);
  });

  test('a seated booking ending with a longer slot but starting before it is no seat to join either', () => {
    // A 30-minute seated booking at 10:15 and the 45-minute slots of a 15-minute grid: 10:00-10:45 ends with it.
    const q = query({ seatsPerTimeSlot: 3, duration: 45, slotInterval: 15, hosts: [host('UTC', seatHours, [seated(1, { start: utc('2026-06-01T10:15Z'), end: utc('2026-06-01T10:45Z') })])] });
    assert.deepEqual(starts(q), ['2026-06-01T09:00Z', '2026-06-01T09:15Z', '2026-06-01T09:30Z', '2026-06-01T10:45Z', '2026-06-01T11:00Z', '2026-06-01T11:15Z']);
    assert.equal(findSlot(q, utc('2026-06-01T10:00Z')), null);
  });

  test('only bookings and reservations of the event type are seats: calendar busy time at the same times blocks', () => {
    const external: BusyBlock = { ...seated(1), source: 'calendar', bookingUid: undefined, seatsTaken: undefined };
    assert.deepEqual(starts(query({ seatsPerTimeSlot: 3, hosts: [host('UTC', seatHours, [external])] })), ['2026-06-01T09:00Z', '2026-06-01T11:00Z']);
  });

  test('a query without an event type has no seats to join: a booking without one blocks', () => {
    const orphan = seated(1, { eventTypeId: null });
    assert.deepEqual(starts(query({ eventTypeId: null, seatsPerTimeSlot: 3, hosts: [host('UTC', seatHours, [orphan])] })), ['2026-06-01T09:00Z', '2026-06-01T11:00Z']);
  });

  test('onlyShowFirstAvailableSlot skips a full first slot instead of emptying the day (reference #28081)', () => {
    const full = booking('2026-06-01T09:00Z', '2026-06-01T10:00Z', { eventTypeId: 7, seatsTaken: 2, bookingUid: 'full' });
    const q = query({ seatsPerTimeSlot: 2, onlyShowFirstAvailableSlot: true, hosts: [host('UTC', seatHours, [full])] });
    assert.deepEqual(starts(q), ['2026-06-01T10:00Z']);
  });

  test('seatUseAt counts the seats of bookings at exactly [start, end): the same start with another length, or the same end, is not that booking', () => {
    const q = query({ seatsPerTimeSlot: 3, hosts: [] });
    const twoAtTen = [seated(1), seated(1, { bookingUid: 'seat-2' })];
    const others = [seated(1, { bookingUid: 'longer', end: utc('2026-06-01T11:30Z') }), seated(1, { bookingUid: 'later', start: utc('2026-06-01T10:30Z') })];
    const plan = planHost(host('UTC', seatHours, [...others, ...twoAtTen]), q, utc('2026-06-01T00:00Z'), utc('2026-06-02T00:00Z'))!;
    assert.deepEqual(seatUseAt(plan, utc('2026-06-01T10:00Z'), utc('2026-06-01T11:00Z')), { seats: 2, bookingUid: 'seat-1' });
    assert.deepEqual(seatUseAt(plan, utc('2026-06-01T10:00Z'), utc('2026-06-01T10:30Z')), { seats: 0, bookingUid: null });
    assert.deepEqual(seatUseAt(plan, utc('2026-06-01T09:30Z'), utc('2026-06-01T11:00Z')), { seats: 0, bookingUid: null });
    assert.deepEqual(seatUseAt(plan, utc('2026-06-01T10:00Z'), utc('2026-06-01T11:30Z')), { seats: 1, bookingUid: 'longer' });
  });

  test('without seated bookings a start inside free time fits, with or without seats', () => {
    for (const seatsPerTimeSlot of [null, 1, 2]) {
      const plan = planHost(host('UTC', seatHours), query({ seatsPerTimeSlot }), utc('2026-06-01T00:00Z'), utc('2026-06-02T00:00Z'))!;
      assert.equal(plan.occupancies.length, 0);
      assert.equal(fits(plan, utc('2026-06-01T09:00Z'), utc('2026-06-01T10:00Z'), seatsPerTimeSlot), true, String(seatsPerTimeSlot));
      assert.equal(fits(plan, utc('2026-06-01T11:30Z'), utc('2026-06-01T12:30Z'), seatsPerTimeSlot), false, 'past the hours');
    }
  });

  test('onlyShowFirstAvailableSlot: one slot a date on every path, when the date has two pieces of hours', () => {
    // Monday and Tuesday 09:00-11:00 and 13:00-15:00 in Kolkata (+05:30): the first slot is 03:30Z each date.
    const split = [{ days: [1, 2], startMinute: 540, endMinute: 660 }, { days: [1, 2], startMinute: 780, endMinute: 900 }];
    const base = query({ onlyShowFirstAvailableSlot: true, from: utc('2026-05-31T18:30Z'), to: utc('2026-06-02T18:30Z'), hosts: [host('Asia/Kolkata', split)] });
    const expected = ['2026-06-01T03:30Z', '2026-06-02T03:30Z'];
    const roundRobin = (h: HostAvailability, userId: number) => ({ ...h, userId, fixed: false });
    for (const [name, q] of [
      ['one host', base],
      ['shifted grids (showOptimizedSlots)', { ...base, showOptimizedSlots: true }],
      ['seats', { ...base, seatsPerTimeSlot: 2 }],
      ['round robin', { ...base, hosts: [roundRobin(base.hosts[0]!, 1), roundRobin(base.hosts[0]!, 2)] }],
      ['a 15-minute grid', { ...base, slotInterval: 15 }],
    ] as const) {
      assert.deepEqual(starts(q), expected, name);
    }
    // The first piece taken on Monday: its date's first slot is in the second piece, 13:00 local.
    const busy = booking('2026-06-01T03:30Z', '2026-06-01T05:30Z');
    for (const optimized of [false, true]) {
      assert.deepEqual(starts({ ...base, showOptimizedSlots: optimized, hosts: [host('Asia/Kolkata', split, [busy])] }), ['2026-06-01T07:30Z', '2026-06-02T03:30Z']);
    }
  });
});

describe('slot engine: reservations', () => {
  test('a reservation holds its host only: other round-robin hosts still offer the start (reference #24519)', () => {
    const hours = [{ days: [1], startMinute: 540, endMinute: 660 }];
    const held: BusyBlock = { ...booking('2026-06-01T09:00Z', '2026-06-01T10:00Z'), source: 'reservation', eventTypeId: 7 };
    const q = query({ hosts: [host('UTC', hours, [held], { userId: 1, fixed: false }), host('UTC', hours, [], { userId: 2, fixed: false })] });
    assert.deepEqual(computeSlots(q).map((slot) => [iso(slot.start), slot.hostIds]), [['2026-06-01T09:00Z', [2]], ['2026-06-01T10:00Z', [1, 2]]]);
  });
});

describe('slot engine: several hosts', () => {
  const morning = [{ days: [1], startMinute: 540, endMinute: 720 }];
  const noon = [{ days: [1], startMinute: 660, endMinute: 840 }];

  test('fixed hosts: every one must be free (intersection)', () => {
    const q = query({ hosts: [host('UTC', morning, [], { userId: 1 }), host('UTC', noon, [], { userId: 2 })] });
    assert.deepEqual(computeSlots(q).map((slot) => [iso(slot.start), slot.hostIds]), [['2026-06-01T11:00Z', [1, 2]]]);
  });

  test('round robin: any one host (union), each slot naming who is free', () => {
    const busy = [booking('2026-06-01T11:00Z', '2026-06-01T12:00Z')];
    const q = query({ hosts: [host('UTC', morning, busy, { userId: 1, fixed: false }), host('UTC', noon, [], { userId: 2, fixed: false })] });
    assert.deepEqual(computeSlots(q).map((slot) => [iso(slot.start), slot.hostIds]), [
      ['2026-06-01T09:00Z', [1]], ['2026-06-01T10:00Z', [1]], ['2026-06-01T11:00Z', [2]], ['2026-06-01T12:00Z', [2]], ['2026-06-01T13:00Z', [2]],
    ]);
  });

  test('round robin with a fixed host: the fixed host and one other', () => {
    const q = query({
      hosts: [host('UTC', morning, [], { userId: 1, fixed: false }), host('UTC', noon, [], { userId: 2, fixed: false }), host('UTC', [{ days: [1], startMinute: 600, endMinute: 780 }], [], { userId: 3 })],
    });
    assert.deepEqual(computeSlots(q).map((slot) => [iso(slot.start), slot.hostIds]), [
      ['2026-06-01T10:00Z', [1, 3]], ['2026-06-01T11:00Z', [1, 2, 3]], ['2026-06-01T12:00Z', [2, 3]],
    ]);
  });

  test('round-robin hosts without a group are one group beside the named ones: two of them free serve one group', () => {
    const hours = [{ days: [1], startMinute: 540, endMinute: 660 }];
    const q = query({
      hosts: [
        host('UTC', hours, [], { userId: 1, fixed: false, groupId: null }),
        host('UTC', hours, [], { userId: 2, fixed: false }),
        host('UTC', hours, [booking('2026-06-01T09:00Z', '2026-06-01T10:00Z')], { userId: 3, fixed: false, groupId: 'a' }),
      ],
    });
    assert.deepEqual(computeSlots(q).map((slot) => [iso(slot.start), slot.hostIds]), [['2026-06-01T10:00Z', [1, 2, 3]]]);
  });

  test('a user listed as a fixed host and as a round-robin host is named once in each slot', () => {
    const hours = [{ days: [1], startMinute: 540, endMinute: 660 }];
    const q = query({ hosts: [host('UTC', hours, [], { userId: 1, fixed: true }), host('UTC', hours, [], { userId: 1, fixed: false }), host('UTC', hours, [], { userId: 2, fixed: false })] });
    assert.deepEqual(computeSlots(q).map((slot) => [iso(slot.start), slot.hostIds]), [['2026-06-01T09:00Z', [1, 2]], ['2026-06-01T10:00Z', [1, 2]]]);
  });

  test('a user in two round-robin groups (and no fixed host) is named once in each slot', () => {
    const hours = [{ days: [1], startMinute: 540, endMinute: 660 }];
    const q = query({ hosts: [host('UTC', hours, [], { userId: 1, fixed: false, groupId: 'a' }), host('UTC', hours, [], { userId: 1, fixed: false, groupId: 'b' }), host('UTC', hours, [], { userId: 2, fixed: false, groupId: 'b' })] });
    assert.deepEqual(computeSlots(q).map((slot) => [iso(slot.start), slot.hostIds]), [['2026-06-01T09:00Z', [1, 2]], ['2026-06-01T10:00Z', [1, 2]]]);
  });

  test('a fixed host without a schedule makes nothing bookable', () => {
    assert.deepEqual(starts(query({ hosts: [host('UTC'), { userId: 2, fixed: true, schedule: null, busy: [] }] })), []);
  });

  test('a round-robin host without a schedule is left out and its group-mates are still offered', () => {
    const hours = [{ days: [1], startMinute: 540, endMinute: 660 }];
    const q = query({ hosts: [{ userId: 1, fixed: false, schedule: null, busy: [] }, host('UTC', hours, [], { userId: 2, fixed: false })] });
    assert.deepEqual(computeSlots(q).map((slot) => [iso(slot.start), slot.hostIds]), [['2026-06-01T09:00Z', [2]], ['2026-06-01T10:00Z', [2]]]);
  });

  test('an empty or inverted range, or a length of 0 minutes or less, has no slots', () => {
    const q = query({ slotInterval: 30 });
    assert.ok(computeSlots(q).length > 0);
    assert.deepEqual(computeSlots({ ...q, to: q.from }), []);
    assert.deepEqual(computeSlots({ ...q, to: q.from - 3_600_000 }), []);
    assert.deepEqual(computeSlots({ ...q, duration: 0 }), []);
    assert.deepEqual(computeSlots({ ...q, duration: -30 }), []);
  });

  test('an event type without hosts (a team type before any is assigned) has no slots', () => {
    const q = query({ hosts: [] });
    assert.deepEqual(computeSlots(q), []);
    assert.equal(findSlot(q, utc('2026-06-01T09:00Z')), null);
  });
});

describe('slot engine: one answer for listing and booking', () => {
  test('findSlot returns exactly the listed slot, and null for any other start', () => {
    const busy = [booking('2026-06-01T13:00Z', '2026-06-01T14:00Z', { bufferAfter: 10 })];
    const q = query({ slotInterval: 20, duration: 40, now: utc('2026-06-01T09:30Z'), minimumBookingNotice: 30, hosts: [host('America/New_York', NINE_TO_FIVE, busy)], from: utc('2026-06-01T00:00Z'), to: utc('2026-06-03T00:00Z') });
    const listed = computeSlots(q);
    assert.ok(listed.length > 10);
    for (const slot of listed) assert.deepEqual(findSlot(q, slot.start), slot);
    const listedStarts = new Set(listed.map((slot) => slot.start));
    for (let minute = q.from; minute < q.to; minute += 5 * MINUTE) {
      if (!listedStarts.has(minute)) assert.equal(findSlot(q, minute), null, iso(minute));
    }
  });

  test('a booker holding the maximum active bookings gets no slot (bookerActiveBookingsLimit)', () => {
    const q = query({ hosts: [host('UTC')] });
    assert.equal(computeSlots({ ...q, bookerLimit: { maximumActiveBookings: 2, activeBookings: 1 } }).length, 8);
    assert.deepEqual(computeSlots({ ...q, bookerLimit: { maximumActiveBookings: 2, activeBookings: 2 } }), []);
    assert.equal(explainUnavailable({ ...q, bookerLimit: { maximumActiveBookings: 2, activeBookings: 2 } }, utc('2026-06-01T09:00Z')), 'booker_limit_reached');
  });

  test('explainUnavailable names the rule that refused a start', () => {
    const seatsFull = booking('2026-06-01T09:00Z', '2026-06-01T10:00Z', { eventTypeId: 7, seatsTaken: 1, bookingUid: 's' });
    const reservation: BusyBlock = { ...booking('2026-06-01T11:00Z', '2026-06-01T12:00Z'), source: 'reservation' };
    const other = booking('2026-06-01T12:00Z', '2026-06-01T13:00Z');
    const q = query({
      now: utc('2026-06-01T08:30Z'), minimumBookingNotice: 30, seatsPerTimeSlot: 1, bookingWindow: { type: 'calendarDays', days: 0, rolling: false },
      hosts: [host('UTC', NINE_TO_FIVE, [seatsFull, reservation, other])], bookingLimitsCount: { day: 5 },
      limitBookings: [], to: utc('2026-06-03T00:00Z'),
    });
    assert.equal(explainUnavailable(q, utc('2026-06-01T08:00Z')), 'in_the_past');
    assert.equal(explainUnavailable(q, utc('2026-06-01T08:45Z')), 'too_soon');
    assert.equal(explainUnavailable(q, utc('2026-06-02T10:00Z')), 'outside_booking_window');
    assert.equal(explainUnavailable(q, utc('2026-06-01T09:00Z')), 'seats_full');
    assert.equal(explainUnavailable(q, utc('2026-06-01T11:00Z')), 'reserved');
    assert.equal(explainUnavailable(q, utc('2026-06-01T12:00Z')), 'booked');
    assert.equal(explainUnavailable(q, utc('2026-06-01T10:30Z')), 'not_available');
    const limited = { ...q, bookingLimitsCount: { day: 1 }, limitBookings: [{ start: utc('2026-06-01T09:00Z'), end: utc('2026-06-01T10:00Z') }] };
    assert.equal(explainUnavailable(limited, utc('2026-06-01T14:00Z')), 'booking_limit_reached');
  });

  test('explainUnavailable at the edges: a start at now, at a window\'s first and end instants, a limit not reached', () => {
    const taken = (start: string, fields: Partial<BusyBlock> = {}) => booking(start, new Date(utc(start) + 60 * MINUTE).toISOString(), fields);
    const q = query({ now: utc('2026-06-01T09:00Z'), minimumBookingNotice: 60, hosts: [host('UTC', NINE_TO_FIVE, [taken('2026-06-01T12:00Z')])] });
    // Exactly now is not past yet: the notice refuses it.
    assert.equal(explainUnavailable(q, utc('2026-06-01T09:00Z')), 'too_soon');
    // A booker below their limit: the booking is why, not the limit.
    assert.equal(explainUnavailable({ ...q, bookerLimit: { maximumActiveBookings: 2, activeBookings: 1 } }, utc('2026-06-01T12:00Z')), 'booked');
    // A range window from June 3 to June 4 (whole UTC dates): booked starts before it, on its first instant, and at its end.
    const inRange = query({
      now: utc('2026-06-01T00:00Z'), to: utc('2026-06-06T00:00Z'), bookingWindow: { type: 'range', start: '2026-06-03', end: '2026-06-04' },
      hosts: [host('UTC', [{ days: [0, 1, 2, 3, 4, 5, 6], startMinute: 0, endMinute: 1440 }], [taken('2026-06-02T09:00Z'), taken('2026-06-03T00:00Z'), taken('2026-06-05T00:00Z')])],
    });
    assert.equal(explainUnavailable(inRange, utc('2026-06-02T09:00Z')), 'outside_booking_window', 'booked, and before the window');
    assert.equal(explainUnavailable(inRange, utc('2026-06-03T00:00Z')), 'booked', 'the window\'s first instant is in it');
    assert.equal(explainUnavailable(inRange, utc('2026-06-05T00:00Z')), 'outside_booking_window', 'booked, and at the window\'s end');
  });

  test('explainUnavailable: what holds a start that no rule refuses, and which busy time is a booking', () => {
    const firstOnly = query({ hosts: [host('UTC')], onlyShowFirstAvailableSlot: true, bookingLimitsCount: { day: 5 } });
    assert.ok(findSlot(firstOnly, utc('2026-06-01T09:00Z')));
    assert.equal(explainUnavailable(firstOnly, utc('2026-06-01T10:00Z')), 'not_available', 'only the first slot is offered; no limit is reached');
    // Not seated: a booking of this very event type at this start is a booking, not a full seat.
    const sameType = query({ hosts: [host('UTC', NINE_TO_FIVE, [booking('2026-06-01T09:00Z', '2026-06-01T10:00Z', { eventTypeId: 7, seatsTaken: 1, bookingUid: 'x' })])] });
    assert.equal(explainUnavailable(sameType, utc('2026-06-01T09:00Z')), 'booked');
    // Busy time from a connected calendar is not a booking.
    const calendar = query({ hosts: [host('UTC', NINE_TO_FIVE, [booking('2026-06-01T09:00Z', '2026-06-01T10:00Z', { source: 'calendar', eventTypeId: null })])] });
    assert.equal(explainUnavailable(calendar, utc('2026-06-01T09:00Z')), 'not_available');
  });

  test('findSlot reads the start\'s whole local date, whatever range the query names', () => {
    const elsewhere = query({ hosts: [host('Asia/Kathmandu')], from: utc('2026-07-01T00:00Z'), to: utc('2026-07-02T00:00Z') });
    // 09:00 in Kathmandu (+05:45) on Monday June 1 is 03:15Z, outside the query's range.
    const slot = findSlot(elsewhere, utc('2026-06-01T03:15Z'));
    assert.ok(slot);
    assert.equal(slot.end, utc('2026-06-01T04:15Z'));
    assert.equal(findSlot(elsewhere, utc('2026-06-01T03:00Z')), null, 'off the grid');
  });
});
