// expandBusyIntervals on concrete feeds. The suite runs with TZ=Pacific/Chatham: every expected
// instant below is written in UTC, so none may depend on the machine's zone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CalendarProviderError } from '../../src/integrations/calendar-types.js';
import { DEFAULT_EXPANSION_LIMITS, expandBusyIntervals } from '../../src/integrations/ics/expand-busy.js';
import { ianaZoneOfTzid, WINDOWS_ZONES } from '../../src/integrations/ics/ics-zones.js';
import { isIanaTimeZone } from '../../src/lib/time-zones.js';

/** A VCALENDAR around `body`, each line trimmed (the text below is indented) and ended with CRLF. */
function vcalendar(body: string): string {
  const lines = body
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//svc tests//EN', ...lines, 'END:VCALENDAR'].join('\r\n');
}

const minute = (ms: number) => `${new Date(ms).toISOString().slice(0, 16)}Z`;

/** The busy intervals as "start end uid" in UTC, to the minute. */
function busy(ics: string, from: string, to: string, floatingZone = 'UTC'): string[] {
  return expandBusyIntervals(ics, { from: Date.parse(from), to: Date.parse(to) }, floatingZone).intervals.map(
    (interval) => `${minute(interval.start)} ${minute(interval.end)} ${interval.uid}`,
  );
}

const invalidData = (error: unknown) => error instanceof CalendarProviderError && error.kind === 'invalid_data';

describe('zones', () => {
  test('a weekly 09:00 Europe/Berlin meeting stays at 09:00 local across both changes (IANA name, no VTIMEZONE)', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:standup
      DTSTART;TZID=Europe/Berlin:20260319T090000
      DTEND;TZID=Europe/Berlin:20260319T093000
      RRULE:FREQ=WEEKLY;UNTIL=20261105T080000Z
      END:VEVENT`);
    const all = busy(ics, '2026-03-01T00:00Z', '2026-12-01T00:00Z');
    assert.equal(all.length, 34);
    assert.deepEqual(all.slice(0, 3), [
      '2026-03-19T08:00Z 2026-03-19T08:30Z standup',
      '2026-03-26T08:00Z 2026-03-26T08:30Z standup', // CET, +01:00
      '2026-04-02T07:00Z 2026-04-02T07:30Z standup', // CEST from 29 March, +02:00
    ]);
    assert.deepEqual(all.slice(-3), [
      '2026-10-22T07:00Z 2026-10-22T07:30Z standup',
      '2026-10-29T08:00Z 2026-10-29T08:30Z standup', // CET again from 25 October
      '2026-11-05T08:00Z 2026-11-05T08:30Z standup', // UNTIL is inclusive
    ]);
  });

  test('America/New_York across its spring change', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:ny
      DTSTART;TZID=America/New_York:20260306T090000
      DTEND;TZID=America/New_York:20260306T100000
      RRULE:FREQ=DAILY;COUNT=4
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-04-01T00:00Z'), [
      '2026-03-06T14:00Z 2026-03-06T15:00Z ny',
      '2026-03-07T14:00Z 2026-03-07T15:00Z ny',
      '2026-03-08T13:00Z 2026-03-08T14:00Z ny',
      '2026-03-09T13:00Z 2026-03-09T14:00Z ny',
    ]);
  });

  test('half- and quarter-hour zones: Asia/Kolkata (+05:30) and Asia/Kathmandu (+05:45)', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:kolkata
      DTSTART;TZID=Asia/Kolkata:20260310T093000
      DTEND;TZID=Asia/Kolkata:20260310T103000
      END:VEVENT
      BEGIN:VEVENT
      UID:kathmandu
      DTSTART;TZID=Asia/Kathmandu:20260310T100000
      DTEND;TZID=Asia/Kathmandu:20260310T110000
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-10T00:00Z', '2026-03-11T00:00Z'), [
      '2026-03-10T04:00Z 2026-03-10T05:00Z kolkata',
      '2026-03-10T04:15Z 2026-03-10T05:15Z kathmandu',
    ]);
  });

  test('Australia/Lord_Howe moves by 30 minutes, and a weekly 09:00 follows it both ways', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:lhi
      DTSTART;TZID=Australia/Lord_Howe:20260404T090000
      DURATION:PT1H
      RRULE:FREQ=WEEKLY;BYDAY=SA
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-04-01T00:00Z', '2026-04-12T00:00Z'), [
      '2026-04-03T22:00Z 2026-04-03T23:00Z lhi', // +11:00
      '2026-04-10T22:30Z 2026-04-10T23:30Z lhi', // +10:30 from 5 April
    ]);
    assert.deepEqual(busy(ics, '2026-10-01T00:00Z', '2026-10-11T00:00Z'), [
      '2026-10-02T22:30Z 2026-10-02T23:30Z lhi',
      '2026-10-09T22:00Z 2026-10-09T23:00Z lhi', // +11:00 from 4 October
    ]);
  });

  test("a VTIMEZONE with a name of the file's own (Custom/Zone) is used with its rules", () => {
    // +02:00, and +03:00 from the first Sunday of March to the first Sunday of October: no IANA zone's rules.
    const ics = vcalendar(`
      BEGIN:VTIMEZONE
      TZID:Custom/Zone
      BEGIN:STANDARD
      DTSTART:19701004T030000
      TZOFFSETFROM:+0300
      TZOFFSETTO:+0200
      RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU
      END:STANDARD
      BEGIN:DAYLIGHT
      DTSTART:19700301T020000
      TZOFFSETFROM:+0200
      TZOFFSETTO:+0300
      RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=1SU
      END:DAYLIGHT
      END:VTIMEZONE
      BEGIN:VEVENT
      UID:custom
      DTSTART;TZID=Custom/Zone:20260226T090000
      DTEND;TZID=Custom/Zone:20260226T100000
      RRULE:FREQ=WEEKLY;COUNT=2
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-02-01T00:00Z', '2026-04-01T00:00Z', 'America/New_York'), [
      '2026-02-26T07:00Z 2026-02-26T08:00Z custom',
      '2026-03-05T06:00Z 2026-03-05T07:00Z custom',
    ]);
  });

  test("the file's VTIMEZONE wins over the IANA zone of the same name", () => {
    // This file's Europe/Berlin has no summer time.
    const ics = vcalendar(`
      BEGIN:VTIMEZONE
      TZID:Europe/Berlin
      BEGIN:STANDARD
      DTSTART:19700101T000000
      TZOFFSETFROM:+0100
      TZOFFSETTO:+0100
      END:STANDARD
      END:VTIMEZONE
      BEGIN:VEVENT
      UID:july
      DTSTART;TZID=Europe/Berlin:20260715T090000
      DTEND;TZID=Europe/Berlin:20260715T100000
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-07-15T00:00Z', '2026-07-16T00:00Z'), ['2026-07-15T08:00Z 2026-07-15T09:00Z july']);
  });

  test('a Windows zone name without a VTIMEZONE is read as its IANA zone; an unknown name as the floating zone', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:outlook
      DTSTART;TZID=W. Europe Standard Time:20260715T090000
      DTEND;TZID=W. Europe Standard Time:20260715T100000
      END:VEVENT
      BEGIN:VEVENT
      UID:mozilla
      DTSTART;TZID=/mozilla.org/20070129_1/Asia/Tokyo:20260715T090000
      DTEND;TZID=/mozilla.org/20070129_1/Asia/Tokyo:20260715T100000
      END:VEVENT
      BEGIN:VEVENT
      UID:unknown
      DTSTART;TZID=Somewhere Standard Time:20260715T090000
      DTEND;TZID=Somewhere Standard Time:20260715T100000
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-07-14T00:00Z', '2026-07-16T00:00Z', 'America/New_York'), [
      '2026-07-15T00:00Z 2026-07-15T01:00Z mozilla',
      '2026-07-15T07:00Z 2026-07-15T08:00Z outlook',
      '2026-07-15T13:00Z 2026-07-15T14:00Z unknown',
    ]);
  });

  test('every Windows name in the table maps to a zone this runtime knows', () => {
    assert.ok(Object.keys(WINDOWS_ZONES).length > 100);
    for (const [name, zone] of Object.entries(WINDOWS_ZONES)) {
      assert.ok(isIanaTimeZone(zone), `${name} -> ${zone}`);
      assert.equal(ianaZoneOfTzid(name), name === 'UTC' ? 'UTC' : zone);
    }
  });

  test('floating times are in the floating zone, not the machine zone', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:floating
      DTSTART:20260310T090000
      DTEND:20260310T100000
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-09T00:00Z', '2026-03-11T00:00Z', 'America/New_York'), ['2026-03-10T13:00Z 2026-03-10T14:00Z floating']);
    assert.deepEqual(busy(ics, '2026-03-09T00:00Z', '2026-03-11T00:00Z', 'Asia/Tokyo'), ['2026-03-10T00:00Z 2026-03-10T01:00Z floating']);
  });

  test('UTC times stay UTC whatever the floating zone', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:utc
      DTSTART:20260310T090000Z
      DTEND:20260310T100000Z
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-09T00:00Z', '2026-03-11T00:00Z', 'Asia/Tokyo'), ['2026-03-10T09:00Z 2026-03-10T10:00Z utc']);
  });
});

describe('all-day events', () => {
  test('an all-day event on the spring-forward day is busy midnight to midnight: 23 hours', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:sunday
      DTSTART;VALUE=DATE:20260329
      DTEND;VALUE=DATE:20260330
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-04-01T00:00Z', 'Europe/Berlin'), ['2026-03-28T23:00Z 2026-03-29T22:00Z sunday']);
  });

  test('a weekly all-day event follows local midnights across a change', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:weekly-day
      DTSTART;VALUE=DATE:20260322
      DTEND;VALUE=DATE:20260323
      RRULE:FREQ=WEEKLY;COUNT=3
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-05-01T00:00Z', 'Europe/Berlin'), [
      '2026-03-21T23:00Z 2026-03-22T23:00Z weekly-day',
      '2026-03-28T23:00Z 2026-03-29T22:00Z weekly-day',
      '2026-04-04T22:00Z 2026-04-05T22:00Z weekly-day',
    ]);
  });

  test('a date without VALUE=DATE is read as a date; a missing DTEND makes it one day', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:lenient
      DTSTART:20260310
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-04-01T00:00Z', 'Asia/Tokyo'), ['2026-03-09T15:00Z 2026-03-10T15:00Z lenient']);
  });
});

describe('lengths', () => {
  test('no DTEND on a date-time is not busy; DURATION counts days on the calendar and hours exactly', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:instant
      DTSTART;TZID=Europe/Berlin:20260328T120000
      END:VEVENT
      BEGIN:VEVENT
      UID:zero
      DTSTART;TZID=Europe/Berlin:20260328T120000
      DTEND;TZID=Europe/Berlin:20260328T120000
      END:VEVENT
      BEGIN:VEVENT
      UID:one-day
      DTSTART;TZID=Europe/Berlin:20260328T120000
      DURATION:P1D
      END:VEVENT
      BEGIN:VEVENT
      UID:twenty-four-hours
      DTSTART;TZID=Europe/Berlin:20260328T120000
      DURATION:PT24H
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-28T00:00Z', '2026-03-30T00:00Z'), [
      '2026-03-28T11:00Z 2026-03-29T10:00Z one-day', // 12:00 to 12:00 local: 23 hours
      '2026-03-28T11:00Z 2026-03-29T11:00Z twenty-four-hours',
    ]);
  });
});

describe('what is not busy', () => {
  test('TRANSP:TRANSPARENT, STATUS:CANCELLED and Outlook "free" events are left out', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:free
      DTSTART:20260310T090000Z
      DTEND:20260310T100000Z
      TRANSP:TRANSPARENT
      END:VEVENT
      BEGIN:VEVENT
      UID:cancelled
      DTSTART:20260310T090000Z
      DTEND:20260310T100000Z
      RRULE:FREQ=DAILY;COUNT=3
      STATUS:CANCELLED
      END:VEVENT
      BEGIN:VEVENT
      UID:outlook-free
      DTSTART:20260310T090000Z
      DTEND:20260310T100000Z
      X-MICROSOFT-CDO-BUSYSTATUS:FREE
      END:VEVENT
      BEGIN:VEVENT
      UID:opaque
      DTSTART:20260310T110000Z
      DTEND:20260310T120000Z
      TRANSP:OPAQUE
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-10T00:00Z', '2026-03-13T00:00Z'), ['2026-03-10T11:00Z 2026-03-10T12:00Z opaque']);
  });
});

describe('recurrence', () => {
  test('EXDATE removes one occurrence, whether given in the series zone, in UTC or as a date', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:daily
      DTSTART;TZID=Europe/Berlin:20260302T090000
      DTEND;TZID=Europe/Berlin:20260302T100000
      RRULE:FREQ=DAILY;COUNT=6
      EXDATE;TZID=Europe/Berlin:20260303T090000
      EXDATE:20260305T080000Z
      EXDATE;VALUE=DATE:20260306
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-04-01T00:00Z'), [
      '2026-03-02T08:00Z 2026-03-02T09:00Z daily',
      '2026-03-04T08:00Z 2026-03-04T09:00Z daily',
      '2026-03-07T08:00Z 2026-03-07T09:00Z daily',
    ]);
  });

  test('EXDATE on an all-day series', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:days
      DTSTART;VALUE=DATE:20260302
      RRULE:FREQ=DAILY;COUNT=3
      EXDATE;VALUE=DATE:20260303
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-04-01T00:00Z'), ['2026-03-02T00:00Z 2026-03-03T00:00Z days', '2026-03-04T00:00Z 2026-03-05T00:00Z days']);
  });

  test('RECURRENCE-ID: a moved occurrence frees its old time and takes its new one; a cancelled one frees its time', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:weekly
      DTSTART;TZID=Europe/Berlin:20260302T090000
      DTEND;TZID=Europe/Berlin:20260302T100000
      RRULE:FREQ=WEEKLY;COUNT=4
      END:VEVENT
      BEGIN:VEVENT
      UID:weekly
      RECURRENCE-ID;TZID=Europe/Berlin:20260309T090000
      DTSTART;TZID=Europe/Berlin:20260311T140000
      DTEND;TZID=Europe/Berlin:20260311T150000
      END:VEVENT
      BEGIN:VEVENT
      UID:weekly
      RECURRENCE-ID;TZID=Europe/Berlin:20260316T090000
      DTSTART;TZID=Europe/Berlin:20260316T090000
      DTEND;TZID=Europe/Berlin:20260316T100000
      STATUS:CANCELLED
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-04-01T00:00Z'), [
      '2026-03-02T08:00Z 2026-03-02T09:00Z weekly',
      '2026-03-11T13:00Z 2026-03-11T14:00Z weekly',
      '2026-03-23T08:00Z 2026-03-23T09:00Z weekly',
    ]);
  });

  test('an override moves an occurrence into the window and another out of it; a RECURRENCE-ID in UTC matches too', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:series
      DTSTART;TZID=Europe/Berlin:20260302T090000
      DTEND;TZID=Europe/Berlin:20260302T100000
      RRULE:FREQ=WEEKLY;COUNT=4
      END:VEVENT
      BEGIN:VEVENT
      UID:series
      RECURRENCE-ID:20260302T080000Z
      DTSTART;TZID=Europe/Berlin:20260312T090000
      DTEND;TZID=Europe/Berlin:20260312T100000
      END:VEVENT
      BEGIN:VEVENT
      UID:series
      RECURRENCE-ID;TZID=Europe/Berlin:20260316T090000
      DTSTART;TZID=Europe/Berlin:20260330T090000
      DTEND;TZID=Europe/Berlin:20260330T100000
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-09T00:00Z', '2026-03-20T00:00Z'), [
      '2026-03-09T08:00Z 2026-03-09T09:00Z series',
      '2026-03-12T08:00Z 2026-03-12T09:00Z series',
    ]);
  });

  test("overrides belong to their own series: the same RECURRENCE-ID under another UID changes nothing", () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:a
      DTSTART:20260302T090000Z
      DTEND:20260302T100000Z
      RRULE:FREQ=DAILY;COUNT=2
      END:VEVENT
      BEGIN:VEVENT
      UID:b
      DTSTART:20260302T090000Z
      DTEND:20260302T100000Z
      RRULE:FREQ=DAILY;COUNT=2
      END:VEVENT
      BEGIN:VEVENT
      UID:b
      RECURRENCE-ID:20260303T090000Z
      DTSTART:20260303T090000Z
      DTEND:20260303T100000Z
      STATUS:CANCELLED
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-04-01T00:00Z'), [
      '2026-03-02T09:00Z 2026-03-02T10:00Z a',
      '2026-03-02T09:00Z 2026-03-02T10:00Z b',
      '2026-03-03T09:00Z 2026-03-03T10:00Z a',
    ]);
  });

  test('COUNT and UNTIL end a series (UNTIL on an occurrence includes it)', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:count
      DTSTART:20260302T090000Z
      DURATION:PT1H
      RRULE:FREQ=DAILY;INTERVAL=2;COUNT=3
      END:VEVENT
      BEGIN:VEVENT
      UID:until
      DTSTART:20260302T120000Z
      DURATION:PT1H
      RRULE:FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20260309T120000Z
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-04-01T00:00Z'), [
      '2026-03-02T09:00Z 2026-03-02T10:00Z count',
      '2026-03-02T12:00Z 2026-03-02T13:00Z until',
      '2026-03-04T09:00Z 2026-03-04T10:00Z count',
      '2026-03-05T12:00Z 2026-03-05T13:00Z until',
      '2026-03-06T09:00Z 2026-03-06T10:00Z count',
      '2026-03-09T12:00Z 2026-03-09T13:00Z until',
    ]);
  });

  test('UNTIL as a date ends a timed series after that day; a floating UNTIL is in the series zone; a date-time UNTIL ends an all-day series on its local day', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:until-date
      DTSTART;TZID=America/New_York:20260308T090000
      DURATION:PT1H
      RRULE:FREQ=DAILY;UNTIL=20260309
      END:VEVENT
      BEGIN:VEVENT
      UID:until-floating
      DTSTART;TZID=America/Los_Angeles:20260311T090000
      DURATION:PT1H
      RRULE:FREQ=DAILY;UNTIL=20260312T090000
      END:VEVENT
      BEGIN:VEVENT
      UID:all-day-until
      DTSTART;VALUE=DATE:20260316
      RRULE:FREQ=DAILY;UNTIL=20260318T030000Z
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-04-01T00:00Z', 'America/New_York'), [
      '2026-03-08T13:00Z 2026-03-08T14:00Z until-date',
      '2026-03-09T13:00Z 2026-03-09T14:00Z until-date',
      '2026-03-11T16:00Z 2026-03-11T17:00Z until-floating',
      '2026-03-12T16:00Z 2026-03-12T17:00Z until-floating',
      // 2026-03-18T03:00Z is still the 17th in New York.
      '2026-03-16T04:00Z 2026-03-17T04:00Z all-day-until',
      '2026-03-17T04:00Z 2026-03-18T04:00Z all-day-until',
    ]);
  });

  test('of two copies of an override the higher SEQUENCE wins; an override without an end keeps the series length', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:s
      DTSTART:20260302T090000Z
      DTEND:20260302T093000Z
      RRULE:FREQ=DAILY;COUNT=2
      END:VEVENT
      BEGIN:VEVENT
      UID:s
      RECURRENCE-ID:20260303T090000Z
      SEQUENCE:2
      DTSTART:20260303T150000Z
      END:VEVENT
      BEGIN:VEVENT
      UID:s
      RECURRENCE-ID:20260303T090000Z
      SEQUENCE:1
      DTSTART:20260303T120000Z
      DTEND:20260303T130000Z
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-04-01T00:00Z'), [
      '2026-03-02T09:00Z 2026-03-02T09:30Z s',
      '2026-03-03T15:00Z 2026-03-03T15:30Z s',
    ]);
  });

  test('RDATE adds occurrences, a date-time and a period', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:extra
      DTSTART;TZID=Europe/Berlin:20260302T090000
      DTEND;TZID=Europe/Berlin:20260302T100000
      RDATE;TZID=Europe/Berlin:20260304T150000
      RDATE;VALUE=PERIOD:20260306T120000Z/20260306T150000Z
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-04-01T00:00Z'), [
      '2026-03-02T08:00Z 2026-03-02T09:00Z extra',
      '2026-03-04T14:00Z 2026-03-04T15:00Z extra',
      '2026-03-06T12:00Z 2026-03-06T15:00Z extra',
    ]);
  });

  test('a monthly rule on the 31st skips the months without one', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:m31
      DTSTART:20260131T090000Z
      DURATION:PT1H
      RRULE:FREQ=MONTHLY
      END:VEVENT`);
    assert.deepEqual(
      busy(ics, '2026-01-01T00:00Z', '2026-09-01T00:00Z').map((line) => line.slice(0, 10)),
      ['2026-01-31', '2026-03-31', '2026-05-31', '2026-07-31', '2026-08-31'],
    );
  });

  test('a yearly rule from 29 February falls in leap years only', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:leap
      DTSTART;VALUE=DATE:20240229
      RRULE:FREQ=YEARLY
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2024-01-01T00:00Z', '2033-01-01T00:00Z'), [
      '2024-02-29T00:00Z 2024-03-01T00:00Z leap',
      '2028-02-29T00:00Z 2028-03-01T00:00Z leap',
      '2032-02-29T00:00Z 2032-03-01T00:00Z leap',
    ]);
  });

  test('rules begun decades ago still reach the window, on their own grid', () => {
    // Both have more than DEFAULT_EXPANSION_LIMITS.occurrencesPerEvent occurrences before the window.
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:every-other-day
      DTSTART;TZID=Europe/Berlin:19600101T070000
      DURATION:PT30M
      RRULE:FREQ=DAILY;INTERVAL=2
      END:VEVENT
      BEGIN:VEVENT
      UID:fortnightly
      DTSTART;TZID=Europe/Berlin:19000101T170000
      DURATION:PT1H
      RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TU,WE,TH,FR
      END:VEVENT`);
    const result = expandBusyIntervals(ics, { from: Date.parse('2026-03-01T00:00Z'), to: Date.parse('2026-03-15T00:00Z') }, 'UTC');
    assert.deepEqual(result.skipped, []);
    // 1960-01-01 is day -3653; 07:00 in Berlin in March before the 29th is 06:00Z.
    const firstDay = Date.parse('2026-03-01T00:00Z') / 86_400_000;
    assert.deepEqual(
      result.intervals.filter((interval) => interval.uid === 'every-other-day').map((interval) => minute(interval.start)),
      Array.from({ length: 14 }, (_, index) => firstDay + index)
        .filter((day) => (day + 3653) % 2 === 0)
        .map((day) => minute(day * 86_400_000 + 6 * 3_600_000)),
    );
    // 1900-01-01 was a Monday; the week of 2026-03-02 is 6583 weeks on (odd: off), that of 2026-03-09 on.
    assert.deepEqual(
      result.intervals.filter((interval) => interval.uid === 'fortnightly').map((interval) => minute(interval.start)),
      ['2026-03-09T16:00Z', '2026-03-10T16:00Z', '2026-03-11T16:00Z', '2026-03-12T16:00Z', '2026-03-13T16:00Z'],
    );
  });
});

describe('the window', () => {
  test('an event across an edge is returned whole; one ending at the start or starting at the end is not', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:across-start
      DTSTART:20260310T080000Z
      DTEND:20260310T120000Z
      END:VEVENT
      BEGIN:VEVENT
      UID:ends-at-start
      DTSTART:20260310T060000Z
      DTEND:20260310T100000Z
      END:VEVENT
      BEGIN:VEVENT
      UID:across-end
      DTSTART:20260310T170000Z
      DTEND:20260310T190000Z
      END:VEVENT
      BEGIN:VEVENT
      UID:starts-at-end
      DTSTART:20260310T180000Z
      DTEND:20260310T190000Z
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-10T10:00Z', '2026-03-10T18:00Z'), [
      '2026-03-10T08:00Z 2026-03-10T12:00Z across-start',
      '2026-03-10T17:00Z 2026-03-10T19:00Z across-end',
    ]);
  });

  test('a long recurring event that started before the window overlaps it', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:week-long
      DTSTART;VALUE=DATE:20260302
      DTEND;VALUE=DATE:20260309
      RRULE:FREQ=MONTHLY;COUNT=2
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-05T00:00Z', '2026-03-06T00:00Z'), ['2026-03-02T00:00Z 2026-03-09T00:00Z week-long']);
  });
});

describe('bounded work and bad input', () => {
  test(`a rule that never reaches the window is given up after ${DEFAULT_EXPANSION_LIMITS.occurrencesPerEvent} occurrences; the rest of the feed is read`, () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:runaway
      DTSTART:19700101T000000Z
      DURATION:PT1S
      RRULE:FREQ=SECONDLY
      END:VEVENT
      BEGIN:VEVENT
      UID:real
      DTSTART:20260310T090000Z
      DTEND:20260310T100000Z
      END:VEVENT`);
    const result = expandBusyIntervals(ics, { from: Date.parse('2026-03-01T00:00Z'), to: Date.parse('2026-04-01T00:00Z') }, 'UTC');
    assert.deepEqual(result.intervals, [{ start: Date.parse('2026-03-10T09:00Z'), end: Date.parse('2026-03-10T10:00Z'), uid: 'real' }]);
    assert.equal(result.skipped.length, 1);
    assert.equal(result.skipped[0]!.uid, 'runaway');
    assert.equal(result.skipped[0]!.kind, 'unbounded');
    assert.match(result.skipped[0]!.reason, new RegExp(`more than ${DEFAULT_EXPANSION_LIMITS.occurrencesPerEvent} occurrences`));
  });

  test('a rule whose filters can never match is stopped too', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:never
      DTSTART:20260101T090000Z
      DURATION:PT1H
      RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30
      END:VEVENT`);
    const result = expandBusyIntervals(ics, { from: Date.parse('2026-03-01T00:00Z'), to: Date.parse('2027-04-01T00:00Z') }, 'UTC');
    assert.deepEqual(result.intervals, []);
    assert.deepEqual(result.skipped.map((entry) => [entry.uid, entry.kind]), [['never', 'unbounded']]);
  });

  test('a feed that needs more work than its limit is invalid_data; within the limit it is read', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:a
      DTSTART:20260301T090000Z
      DURATION:PT1H
      RRULE:FREQ=DAILY
      END:VEVENT
      BEGIN:VEVENT
      UID:b
      DTSTART:20260301T100000Z
      DURATION:PT1H
      RRULE:FREQ=DAILY
      END:VEVENT`);
    const window = { from: Date.parse('2026-03-01T00:00Z'), to: Date.parse('2026-04-01T00:00Z') };
    // 62 occurrences, each counted once as an occurrence and about once as a date ical.js tested.
    assert.equal(expandBusyIntervals(ics, window, 'UTC', { ...DEFAULT_EXPANSION_LIMITS, workPerFeed: 200 }).intervals.length, 62);
    assert.throws(() => expandBusyIntervals(ics, window, 'UTC', { ...DEFAULT_EXPANSION_LIMITS, workPerFeed: 100 }), invalidData);
  });

  test('yearly rules that never match cost little: the search stops at the window, not at year 20000', () => {
    const events = Array.from(
      { length: 60 },
      (_, index) => `BEGIN:VEVENT
      UID:never-${index}
      DTSTART:20260101T090000Z
      DURATION:PT1H
      RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1MO;BYMONTHDAY=15
      END:VEVENT`,
    );
    const started = performance.now();
    const result = expandBusyIntervals(vcalendar(events.join('\n')), { from: Date.parse('2026-03-01T00:00Z'), to: Date.parse('2027-04-01T00:00Z') }, 'UTC');
    // Tens of ms; searching to year 20000 takes 100-400 ms an event on a 2-core machine.
    assert.ok(performance.now() - started < 3_000, `took ${performance.now() - started} ms`);
    assert.deepEqual(result.intervals, []);
  });

  test('text that is not iCalendar, or breaks outside its events, is invalid_data', () => {
    const window = { from: Date.parse('2026-03-01T00:00Z'), to: Date.parse('2026-04-01T00:00Z') };
    assert.throws(() => expandBusyIntervals('<!doctype html><html><body>Sign in</body></html>', window, 'UTC'), invalidData);
    assert.throws(() => expandBusyIntervals('BEGIN:VCALENDAR\r\nthis line has no colon\r\nEND:VCALENDAR', window, 'UTC'), invalidData);
    assert.throws(() => expandBusyIntervals('BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nEND:VCALENDAR', window, 'UTC'), invalidData);
  });

  test('a feed whose every event is unreadable is invalid_data', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:broken
      DTSTART:tomorrow
      END:VEVENT`);
    assert.throws(() => expandBusyIntervals(ics, { from: 0, to: Date.parse('2030-01-01T00:00Z') }, 'UTC'), invalidData);
  });

  test('one malformed VEVENT is skipped and the others are read', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:good-1
      DTSTART:20260310T090000Z
      DTEND:20260310T100000Z
      END:VEVENT
      BEGIN:VEVENT
      UID:bad-value
      DTSTART:20261310T250000Z
      DTEND:garbage
      END:VEVENT
      BEGIN:VEVENT
      UID:bad-line
      a line with no colon
      DTSTART:20260311T090000Z
      END:VEVENT
      BEGIN:VEVENT
      UID:no-start
      SUMMARY:nothing else
      END:VEVENT
      BEGIN:VEVENT
      UID:good-2
      DTSTART:20260312T090000Z
      DTEND:20260312T100000Z
      END:VEVENT
      BEGIN:VEVENT
      UID:unterminated
      DTSTART:20260313T090000Z`);
    const result = expandBusyIntervals(ics, { from: Date.parse('2026-03-01T00:00Z'), to: Date.parse('2026-04-01T00:00Z') }, 'UTC');
    assert.deepEqual(result.intervals.map((interval) => interval.uid), ['good-1', 'good-2']);
    assert.deepEqual(result.skipped.map((entry) => `${entry.uid} ${entry.kind}`).sort(), [
      'bad-line unreadable',
      'bad-value unreadable',
      'no-start unreadable',
      'null unreadable',
    ]);
  });

  test('the calendar name comes from X-WR-CALNAME; folded lines and LF-only files are read', () => {
    const ics = ['BEGIN:VCALENDAR', 'X-WR-CALNAME:Ada’s work', 'BEGIN:VEVENT', 'UID:folded-uid-', ' continues', 'DTSTART:20260310T090000Z', 'DTEND:20260310T100000Z', 'END:VEVENT', 'END:VCALENDAR'].join('\n');
    const result = expandBusyIntervals(ics, { from: Date.parse('2026-03-01T00:00Z'), to: Date.parse('2026-04-01T00:00Z') }, 'UTC');
    assert.equal(result.calendarName, 'Ada’s work');
    assert.deepEqual(result.intervals, [{ start: Date.parse('2026-03-10T09:00Z'), end: Date.parse('2026-03-10T10:00Z'), uid: 'folded-uid-continues' }]);
    assert.equal(expandBusyIntervals(vcalendar(''), { from: 0, to: 1 }, 'UTC').calendarName, null);
  });

  test('intervals come sorted by start across events', () => {
    const ics = vcalendar(`
      BEGIN:VEVENT
      UID:late
      DTSTART:20260312T090000Z
      DTEND:20260312T100000Z
      END:VEVENT
      BEGIN:VEVENT
      UID:daily
      DTSTART:20260310T120000Z
      DTEND:20260310T130000Z
      RRULE:FREQ=DAILY;COUNT=3
      END:VEVENT`);
    assert.deepEqual(busy(ics, '2026-03-01T00:00Z', '2026-04-01T00:00Z'), [
      '2026-03-10T12:00Z 2026-03-10T13:00Z daily',
      '2026-03-11T12:00Z 2026-03-11T13:00Z daily',
      '2026-03-12T09:00Z 2026-03-12T10:00Z late',
      '2026-03-12T12:00Z 2026-03-12T13:00Z daily',
    ]);
  });
});
