// Workflow message templates: every variable for hosts, attendees and fixed addresses, in the recipient's
// zone (half- and quarter-hour offsets, 30-minute DST, DST ends, a year end) and locale, HTML escaping,
// and svc's default texts. Every expected value is absolute: run under any TZ (the suite uses Pacific/Chatham).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatInZone } from '../../src/modules/workflows/date-format.js';
import {
  defaultTemplate,
  renderHtmlTemplate,
  renderTemplate,
  type TemplateBooking,
  type TemplateRecipient,
  WORKFLOW_VARIABLES,
} from '../../src/modules/workflows/workflow-template.js';

const links = { appUrl: 'https://svc.test/' };

function bookingWith(overrides: Partial<TemplateBooking> = {}): TemplateBooking {
  return {
    uid: 'bk_123',
    title: 'Intro call',
    eventTypeTitle: 'Intro',
    // Monday June 16 2025: 14:00 in London, 18:30 in Kolkata, 09:00 in New York.
    start: new Date('2025-06-16T13:00:00Z'),
    end: new Date('2025-06-16T13:30:00Z'),
    organizer: { name: 'Olga Host', email: 'olga@svc.test', timeZone: 'Europe/London' },
    attendees: [
      { name: 'Ada King Lovelace', email: 'ada@example.com', timeZone: 'Asia/Kolkata', locale: 'en', phoneNumber: '+441234567890' },
      { name: 'Grace Hopper', email: 'grace@example.com', timeZone: 'America/New_York', locale: 'en', phoneNumber: null },
    ],
    location: 'Main Street 1',
    meetingUrl: 'https://meet.example/abc',
    description: 'Bring the slides',
    responses: {},
    cancellationReason: 'Double booked',
    rescheduleReason: 'Clash',
    ...overrides,
  };
}

const host: TemplateRecipient = { name: 'Olga Host', timeZone: 'Europe/London', locale: 'en', role: 'host' };
const ada: TemplateRecipient = { name: 'Ada King Lovelace', timeZone: 'Asia/Kolkata', locale: 'en', role: 'attendee', email: 'ada@example.com' };
const inZone = (timeZone: string, locale: string | null = 'en', role: TemplateRecipient['role'] = 'host'): TemplateRecipient => ({ name: 'Someone', timeZone, locale, role });

describe('renderTemplate: the variables', () => {
  test("the issue's variables, exactly, for a host in New York", () => {
    const text = '{EVENT_NAME}|{ORGANIZER}|{ATTENDEE}|{LOCATION}|{MEETING_URL}|{START_TIME_h:mma}|{EVENT_DATE_ddd, MMM D, YYYY h:mma}|{TIMEZONE}';
    assert.equal(
      renderTemplate(text, bookingWith(), inZone('America/New_York'), links),
      'Intro call|Olga Host|Ada King Lovelace|Main Street 1|https://meet.example/abc|9:00am|Mon, Jun 16, 2025 9:00am|America/New_York',
    );
  });

  // The attendee is the recipient themself; their zone (Kolkata, +05:30) is the message's zone.
  const forAttendee: Record<(typeof WORKFLOW_VARIABLES)[number], string> = {
    EVENT_NAME: 'Intro call',
    ORGANIZER: 'Olga Host',
    ORGANIZER_NAME: 'Olga Host',
    ATTENDEE: 'Ada King Lovelace',
    ATTENDEE_NAME: 'Ada King Lovelace',
    ATTENDEE_FIRST_NAME: 'Ada',
    ATTENDEE_LAST_NAME: 'Lovelace',
    ATTENDEE_EMAIL: 'ada@example.com',
    EVENT_DATE: 'Monday, June 16, 2025',
    EVENT_TIME: '6:30pm',
    START_TIME: '6:30pm',
    EVENT_END_TIME: '7:00pm',
    TIMEZONE: 'Asia/Kolkata',
    LOCATION: 'Main Street 1',
    ADDITIONAL_NOTES: 'Bring the slides',
    MEETING_URL: 'https://meet.example/abc',
    CANCEL_URL: 'https://svc.test/booking/bk_123?cancel=true',
    RESCHEDULE_URL: 'https://svc.test/reschedule/bk_123',
    RATING_URL: 'https://svc.test/booking/bk_123?rating',
    NO_SHOW_URL: 'https://svc.test/booking/bk_123?noShow=true',
    ATTENDEE_TIMEZONE: 'Asia/Kolkata',
    EVENT_START_TIME_IN_ATTENDEE_TIMEZONE: '6:30pm',
    EVENT_END_TIME_IN_ATTENDEE_TIMEZONE: '7:00pm',
    CANCELLATION_REASON: 'Double booked',
    RESCHEDULE_REASON: 'Clash',
  };

  test('every variable, for an attendee in Asia/Kolkata (+05:30)', () => {
    assert.deepEqual(Object.keys(forAttendee).sort(), [...WORKFLOW_VARIABLES].sort());
    for (const name of WORKFLOW_VARIABLES) {
      assert.equal(renderTemplate(`<{${name}}>`, bookingWith(), ada, links), `<${forAttendee[name]}>`, name);
    }
  });

  test('for the host: the first attendee, in the host zone; the attendee-zone times in the attendee zone', () => {
    const text = '{ATTENDEE}|{ATTENDEE_EMAIL}|{EVENT_TIME}|{EVENT_END_TIME}|{TIMEZONE}|{ATTENDEE_TIMEZONE}|{EVENT_START_TIME_IN_ATTENDEE_TIMEZONE}|{EVENT_END_TIME_IN_ATTENDEE_TIMEZONE_HH:mm}';
    assert.equal(renderTemplate(text, bookingWith(), host, links), 'Ada King Lovelace|ada@example.com|2:00pm|2:30pm|Europe/London|Asia/Kolkata|6:30pm|19:00');
  });

  test('a fixed address reads as the host: the first attendee, not the recipient', () => {
    const address: TemplateRecipient = { name: 'ops@svc.test', timeZone: 'Europe/London', locale: null, role: 'address' };
    assert.equal(renderTemplate('{ATTENDEE}|{ATTENDEE_EMAIL}|{EVENT_TIME}', bookingWith(), address, links), 'Ada King Lovelace|ada@example.com|2:00pm');
  });

  test('an attendee recipient is found by email among several', () => {
    const grace: TemplateRecipient = { name: 'Grace Hopper', timeZone: 'America/New_York', locale: 'en', role: 'attendee', email: 'GRACE@example.com' };
    assert.equal(renderTemplate('{ATTENDEE}|{ATTENDEE_EMAIL}|{ATTENDEE_TIMEZONE}|{EVENT_TIME}', bookingWith(), grace, links), 'Grace Hopper|grace@example.com|America/New_York|9:00am');
  });

  test("the organizer's 24-hour clock", () => {
    const booking = bookingWith({ organizer: { name: 'Olga Host', email: 'olga@svc.test', timeZone: 'Europe/London', timeFormat: 24 } });
    assert.equal(renderTemplate('{EVENT_TIME}-{EVENT_END_TIME}', booking, host, links), '14:00-14:30');
  });

  test('the booking title, else the event type title', () => {
    assert.equal(renderTemplate('{EVENT_NAME}', bookingWith({ title: '' }), host, links), 'Intro');
  });

  test('missing values are empty', () => {
    const booking = bookingWith({ location: null, meetingUrl: null, description: null, cancellationReason: null, rescheduleReason: undefined });
    assert.equal(renderTemplate('[{LOCATION}|{MEETING_URL}|{ADDITIONAL_NOTES}|{CANCELLATION_REASON}|{RESCHEDULE_REASON}]', booking, host, links), '[||||]');
  });

  test('a conferencing app prints its name', () => {
    assert.equal(renderTemplate('{LOCATION}', bookingWith({ location: 'integrations:svc-video' }), host, links), 'svc Video');
    assert.equal(renderTemplate('{LOCATION}', bookingWith({ location: 'integrations:whereby-video' }), host, links), 'Whereby');
  });

  test('first and last name from a name asked in parts', () => {
    const booking = bookingWith({ responses: { name: { firstName: 'Augusta Ada', lastName: 'King' } } });
    assert.equal(renderTemplate('{ATTENDEE_FIRST_NAME}/{ATTENDEE_LAST_NAME}', booking, host, links), 'Augusta Ada/King');
  });
});

describe('renderTemplate: booking fields', () => {
  const booking = bookingWith({
    responses: { 'company-size': '11-50', 'Company Name': 'Acme', topics: ['pricing', 'security'], budget: 5000, phone: null, skipped: undefined, location: 'not this' },
  });

  test('by the reference spelling, its underscore-less spelling, and hyphens as underscores', () => {
    assert.equal(renderTemplate('{COMPANYSIZE}|{COMPANY_SIZE}|{COMPANY_NAME}|{COMPANYNAME}|{company_name}', booking, host, links), '11-50|11-50|Acme|Acme|Acme');
  });

  test('lists joined, numbers printed, null empty, unanswered left as written', () => {
    assert.equal(renderTemplate('{TOPICS}|{BUDGET}|{PHONE}|{SKIPPED}', booking, host, links), 'pricing, security|5000||{SKIPPED}');
  });

  test('a field does not override a built-in variable', () => {
    assert.equal(renderTemplate('{LOCATION}', booking, host, links), 'Main Street 1');
  });
});

describe('renderTemplate: zones and dates', () => {
  test('Asia/Kathmandu (+05:45)', () => {
    const booking = bookingWith({ start: new Date('2025-01-15T03:20:00Z'), end: new Date('2025-01-15T04:20:00Z') });
    assert.equal(renderTemplate('{EVENT_TIME}|{EVENT_TIME_HH:mm Z}|{EVENT_END_TIME_HH:mm ZZ}', booking, inZone('Asia/Kathmandu'), links), '9:05am|09:05 +05:45|10:05 +0545');
  });

  test('Australia/Lord_Howe on the day its clocks move 30 minutes forward', () => {
    // 2025-10-05 02:00 +10:30 becomes 02:30 +11:00.
    const booking = bookingWith({ start: new Date('2025-10-04T15:00:00Z'), end: new Date('2025-10-04T16:00:00Z') });
    assert.equal(
      renderTemplate('{EVENT_DATE}|{START_TIME_HH:mm Z}|{EVENT_END_TIME_HH:mm Z}', booking, inZone('Australia/Lord_Howe'), links),
      'Sunday, October 5, 2025|01:30 +10:30|03:00 +11:00',
    );
  });

  test('America/New_York across the November DST end: 1:30am twice', () => {
    const booking = bookingWith({ start: new Date('2025-11-02T05:30:00Z'), end: new Date('2025-11-02T06:30:00Z') });
    assert.equal(
      renderTemplate('{EVENT_DATE}|{EVENT_TIME_h:mma Z}|{EVENT_END_TIME_h:mma Z}', booking, inZone('America/New_York'), links),
      'Sunday, November 2, 2025|1:30am -04:00|1:30am -05:00',
    );
  });

  test('a booking across the year end, on either side of it', () => {
    const booking = bookingWith({ start: new Date('2025-12-31T23:30:00Z'), end: new Date('2026-01-01T00:30:00Z') });
    const text = '{EVENT_DATE}|{EVENT_DATE_ddd, MMM D, YYYY h:mma}|{EVENT_END_TIME_YYYY-MM-DD HH:mm}|{EVENT_DATE_YY M D}';
    assert.equal(renderTemplate(text, booking, inZone('UTC'), links), 'Wednesday, December 31, 2025|Wed, Dec 31, 2025 11:30pm|2026-01-01 00:30|25 12 31');
    assert.equal(renderTemplate(text, booking, inZone('Asia/Tokyo'), links), 'Thursday, January 1, 2026|Thu, Jan 1, 2026 8:30am|2026-01-01 09:30|26 1 1');
    assert.equal(renderTemplate(text, booking, inZone('America/Los_Angeles'), links), 'Wednesday, December 31, 2025|Wed, Dec 31, 2025 3:30pm|2025-12-31 16:30|25 12 31');
  });

  test('an unknown zone reads as UTC', () => {
    assert.equal(renderTemplate('{EVENT_TIME}|{TIMEZONE}', bookingWith(), inZone('Mars/Olympus'), links), '1:00pm|UTC');
  });

  test('German names of months and weekdays', () => {
    const booking = bookingWith({ start: new Date('2025-03-03T09:00:00Z'), end: new Date('2025-03-03T10:00:00Z') });
    const text = '{EVENT_DATE}|{EVENT_DATE_dddd, D. MMMM YYYY HH:mm}|{EVENT_DATE_ddd MMM}';
    assert.equal(renderTemplate(text, booking, inZone('Europe/Berlin', 'de'), links), 'Montag, 3. März 2025|Montag, 3. März 2025 10:00|Mo März');
    assert.equal(renderTemplate(text, booking, inZone('Europe/Berlin', 'en'), links), 'Monday, March 3, 2025|Monday, 3. March 2025 10:00|Mon Mar');
  });

  test('an unknown or malformed locale is English', () => {
    for (const locale of ['xx', 'not a locale!!', null]) {
      assert.equal(renderTemplate('{EVENT_DATE_dddd MMMM}', bookingWith(), inZone('UTC', locale), links), 'Monday June', String(locale));
    }
  });

  test('text in [brackets] is kept as written', () => {
    assert.equal(renderTemplate('{EVENT_DATE_[Day] D [of] MMMM [at] h:mm A}', bookingWith(), inZone('UTC'), links), 'Day 16 of June at 1:00 PM');
  });

  test('every format token', () => {
    const tokens = 'YYYY YY MMMM MMM MM M DD D dddd ddd dd d HH H hh h mm m ss s A a Z ZZ';
    assert.equal(formatInZone(new Date('2025-03-09T07:05:09Z'), tokens, 'UTC', 'en'), '2025 25 March Mar 03 3 09 9 Sunday Sun Su 0 07 7 07 7 05 5 09 9 AM am +00:00 +0000');
    assert.equal(formatInZone(new Date('2025-03-09T00:00:00Z'), 'h hh A', 'UTC', 'en'), '12 12 AM');
    assert.equal(formatInZone(new Date('2025-03-09T12:00:00Z'), 'h A H', 'UTC', 'en'), '12 PM 12');
    assert.equal(formatInZone(new Date('2025-01-09T07:05:09Z'), 'Z', 'America/St_Johns', 'en'), '-03:30');
  });
});

describe('renderTemplate: syntax', () => {
  test('variable names in any letter case; format tokens keep theirs', () => {
    assert.equal(
      renderTemplate('{event_name}|{Organizer}|{timezone}|{start_time_h:mm}|{Event_Date_MM mm}', bookingWith(), inZone('UTC'), links),
      'Intro call|Olga Host|UTC|1:00|06 00',
    );
  });

  test('unknown variables and stray braces are left as they are', () => {
    assert.equal(renderTemplate('{UNKNOWN} { spaced } {} {EVENT_NAME', bookingWith(), host, links), '{UNKNOWN} { spaced } {} {EVENT_NAME');
  });

  test("the reference editor's {NAME_VARIABLE} spelling", () => {
    assert.equal(renderTemplate('{EVENT_NAME_VARIABLE}|{ORGANIZER_NAME_VARIABLE}', bookingWith(), host, links), 'Intro call|Olga Host');
  });

  test('a value that reads like a variable is not filled in again', () => {
    const booking = bookingWith({ description: 'see {LOCATION}' });
    assert.equal(renderTemplate('{ADDITIONAL_NOTES}', booking, host, links), 'see {LOCATION}');
  });
});

describe('renderHtmlTemplate', () => {
  const booking = bookingWith({
    attendees: [{ name: '<script>alert("x")</script>', email: 'x@example.com', timeZone: 'UTC', locale: null, phoneNumber: null }],
    description: "Tom & Jerry's <b>notes</b>",
  });

  test('escapes the values, not the template', () => {
    assert.equal(
      renderHtmlTemplate('<p>Hi {ATTENDEE}</p><p>{ADDITIONAL_NOTES}</p><a href="{CANCEL_URL}">x</a>', booking, host, links),
      '<p>Hi &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</p><p>Tom &amp; Jerry&#39;s &lt;b&gt;notes&lt;/b&gt;</p><a href="https://svc.test/booking/bk_123?cancel=true">x</a>',
    );
  });

  test('renderTemplate leaves them as given', () => {
    assert.equal(renderTemplate('{ATTENDEE}', booking, host, links), '<script>alert("x")</script>');
  });
});

describe('defaultTemplate', () => {
  const templates = ['reminder', 'rescheduled', 'cancelled', 'completed', 'rating'] as const;
  const channels = ['email', 'sms', 'whatsapp'] as const;

  test('renders with every variable filled in, for hosts and attendees', () => {
    for (const template of templates) {
      for (const channel of channels) {
        const message = defaultTemplate(template, channel, 'en');
        assert.ok(message.text.length > 0, `${template} ${channel}`);
        assert.equal(message.subject.length > 0, channel === 'email', `${template} ${channel} subject`);
        for (const recipient of [host, ada]) {
          for (const part of [message.subject, message.html, message.text]) {
            const rendered = renderHtmlTemplate(part, bookingWith(), recipient, links);
            assert.doesNotMatch(rendered, /[{}]/, `${template} ${channel}: ${rendered}`);
          }
        }
      }
    }
  });

  test('short messages stay under 320 characters', () => {
    for (const template of templates) {
      for (const channel of ['sms', 'whatsapp'] as const) {
        const rendered = renderTemplate(defaultTemplate(template, channel).text, bookingWith(), ada, links);
        assert.ok(rendered.length < 320, `${template} ${channel}: ${rendered.length}`);
      }
    }
  });

  test('the reminder says what, when, who and where', () => {
    const { subject, text } = defaultTemplate('reminder', 'email');
    assert.equal(renderTemplate(subject, bookingWith(), ada, links), 'Reminder: Intro call on Mon, Jun 16 at 6:30pm');
    const body = renderTemplate(text, bookingWith(), ada, links);
    for (const line of ['What: Intro call', 'When: Monday, June 16, 2025, 6:30pm – 7:00pm (Asia/Kolkata)', 'Who: Olga Host and Ada King Lovelace', 'Where: Main Street 1 https://meet.example/abc', 'https://svc.test/reschedule/bk_123']) {
      assert.ok(body.includes(line), line);
    }
    assert.equal(
      renderTemplate(defaultTemplate('reminder', 'sms').text, bookingWith(), ada, links),
      'Reminder: Intro call with Olga Host and Ada King Lovelace on Mon, Jun 16 at 6:30pm (Asia/Kolkata). To reschedule: https://svc.test/reschedule/bk_123',
    );
  });

  test('WhatsApp puts the event name in bold; the rating email links five scores', () => {
    assert.match(renderTemplate(defaultTemplate('cancelled', 'whatsapp').text, bookingWith(), ada, links), /^Cancelled: \*Intro call\* /);
    const html = renderHtmlTemplate(defaultTemplate('rating', 'email').html, bookingWith(), ada, links);
    for (const score of [1, 2, 3, 4, 5]) assert.ok(html.includes(`href="https://svc.test/booking/bk_123?rating=${score}"`), String(score));
    assert.ok(html.includes('href="https://svc.test/booking/bk_123?noShow=true"'));
  });

  test('custom is empty', () => {
    for (const channel of channels) assert.deepEqual(defaultTemplate('custom', channel), { subject: '', html: '', text: '' });
  });
});
