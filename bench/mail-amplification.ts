// The most messages one address without credentials can make svc send in a minute (issue 23 item 5),
// measured as an attacker would take it, and the bound svc's rules set:
//   SVC_TEST_BACKEND=pglite|postgres node --import tsx bench/mail-amplification.ts
// A real server on loopback (test/support/test-app.ts) with the production rate limits and mail budgets,
// its own worker sending over SMTP to a receiver in this process that notes when each message came and to
// whom. The attacker's best play under the rules: each booking request (create, reschedule, cancel: at most
// RATE_LIMIT_ANONYMOUS_BOOKINGS per 60-second window) mails its booker once for free, and the guests'
// messages are charged to the address's hourly budget; so it books as many guests as the budget pays for,
// then guest-less bookings to ten new bookers, and it straddles two throttle windows: one request primes a
// window, 59 s later the rest of that window is sent at once, and the whole next window one second later.
// Scenario "straddling an hour" moves the server's clock so an hourly budget window also ends between the
// two bursts (the worst case); "within one hour" does not. Each scenario takes two minutes. Prints JSON.
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../src/app/config.js';
import { MAX_GUESTS_PER_BOOKING } from '../src/modules/bookings/create/booking-responses.js';
import { createTestApp, request, type TestApp } from '../test/support/test-app.js';

const HOUR_MS = 3_600_000;
const log = (message: string) => process.stderr.write(`[mail-amplification] ${message}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const production = loadConfig({});
const BOOKINGS_PER_WINDOW = production.rateLimit.anonymousRoutes.Bookings;
const BUDGET = production.mailLimits.anonymous;

interface Arrival {
  at: number;
  to: string[];
}

async function startArrivalLog(): Promise<{ url: string; arrivals: Arrival[]; close(): Promise<void> }> {
  const arrivals: Arrival[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        arrivals.push({ at: Date.now(), to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, arrivals, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

interface Outcome {
  status: number;
  reason: string | null;
}

async function scenario(name: string, straddlesHour: boolean) {
  const smtp = await startArrivalLog();
  let offset = 0;
  const env = {
    SMTP_URL: smtp.url,
    RATE_LIMIT_ANONYMOUS: String(production.rateLimit.anonymous),
    SVC_MAIL_LIMIT_ANONYMOUS: String(production.mailLimits.anonymous),
    SVC_MAIL_LIMIT_EVENT_TYPE: String(production.mailLimits.eventType),
    SVC_MAIL_LIMIT_WINDOW_MS: String(production.mailLimits.windowMs),
    SVC_JOB_CONCURRENCY: '16',
  };
  const api: TestApp = await createTestApp(env, undefined, { clock: () => Date.now() + offset });
  try {
    const { user, apiKey } = await api.createUser({ timeZone: 'UTC', username: `victim-host-${Date.now()}`, name: 'Host' });
    const hostEmail = String(user.email).toLowerCase();
    const created = await api.request('POST', '/v2/event-types', { key: apiKey, version: '2024-06-14', body: { title: 'Call', slug: 'call', lengthInMinutes: 15, minimumBookingNotice: 0 } });
    if (created.status !== 201) throw new Error(created.text);
    const eventTypeId = created.body.data.id as number;
    const from = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const to = new Date(Date.now() + 12 * 86_400_000).toISOString().slice(0, 10);
    const slots = await api.request('GET', `/v2/slots?eventTypeId=${eventTypeId}&start=${from}&end=${to}&timeZone=UTC`, { key: apiKey, version: '2024-09-04' });
    const starts = Object.values(slots.body.data as Record<string, { start: string }[]>).flat().map((slot) => slot.start);
    let next = 0;
    let booker = 0;
    // Anonymous: no key, every request from 127.0.0.1.
    const book = async (guests: number): Promise<Outcome> => {
      booker += 1;
      const body = {
        eventTypeId,
        start: starts[next++],
        attendee: { name: `Booker ${booker}`, email: `booker-${name.replace(/\W/g, '')}-${booker}@victims.example`, timeZone: 'UTC' },
        guests: Array.from({ length: guests }, (_, i) => `guest-${booker}-${i}@victims.example`),
      };
      const response = await request(api.baseUrl, 'POST', '/v2/bookings', { version: '2024-08-13', body });
      return { status: response.status, reason: response.body?.error?.details?.reason ?? null };
    };
    let budgetLeft = BUDGET;
    /** A burst of `count` booking requests at once: as many with guests as the budget pays for, the rest guest-less. */
    const burst = async (count: number): Promise<Outcome[]> => {
      const withGuests = Math.min(count, Math.floor(budgetLeft / MAX_GUESTS_PER_BOOKING));
      budgetLeft -= withGuests * MAX_GUESTS_PER_BOOKING;
      return Promise.all(Array.from({ length: count }, (_, i) => book(i < withGuests ? MAX_GUESTS_PER_BOOKING : 0)));
    };

    const primedAt = Date.now();
    if (straddlesHour) {
      // The server's clock reaches a full hour between the two bursts (60.1 s from now, real time).
      const boundaryAt = primedAt + 60_100;
      offset = Math.ceil(boundaryAt / HOUR_MS) * HOUR_MS - boundaryAt;
    }
    log(`${name}: one request primes the bookings throttle window; the bursts come 58.5 s and 60.3 s later`);
    const primed = await book(0);
    await sleep(primedAt + 58_500 - Date.now());
    const minuteStart = Date.now();
    const first = await burst(BOOKINGS_PER_WINDOW - 1);
    await sleep(primedAt + 60_300 - Date.now());
    if (straddlesHour) budgetLeft = BUDGET;
    const second = await burst(BOOKINGS_PER_WINDOW);
    // The attacker keeps trying guests for the rest of the minute: every further request is refused.
    const late: Outcome[] = [];
    while (Date.now() < minuteStart + 58_000) {
      late.push(await book(MAX_GUESTS_PER_BOOKING));
      await sleep(2_000);
    }
    await sleep(minuteStart + 60_000 - Date.now());
    // Mail of the minute's requests still on its way is theirs: wait for the outbox to drain.
    for (let idle = 0; idle < 40; idle++) {
      const pending = await api.runtime.ctx.database.db.execute(sql`select count(*)::int as n from mail_messages where status = 'pending'`);
      if ((pending as unknown as { rows: { n: number }[] }).rows[0]!.n === 0) break;
      await sleep(500);
    }
    const inMinute = smtp.arrivals.filter((arrival) => arrival.at >= minuteStart);
    const recipients = inMinute.flatMap((arrival) => arrival.to);
    const outside = recipients.filter((address) => address !== hostEmail);
    const all = [primed, ...first, ...second, ...late];
    return {
      scenario: name,
      requests: {
        sent: all.length - 1,
        accepted: [...first, ...second, ...late].filter((outcome) => outcome.status === 201).length,
        refusedMailLimit: all.filter((outcome) => outcome.reason === 'mail_limit_reached').length,
        refusedRateLimit: all.filter((outcome) => outcome.reason === 'rate_limited').length,
      },
      messagesInTheMinute: { total: recipients.length, toOutsideAddresses: outside.length, toTheHost: recipients.length - outside.length, distinctOutsideAddresses: new Set(outside).size },
    };
  } finally {
    await api.close();
    await smtp.close();
  }
}

const bound = {
  note:
    'Any 60 s overlaps at most two fixed 60 s windows of the bookings throttle and two fixed budget windows (one hour each); each booking request mails its booker once free of charge, every other message to a non-host is charged to the address budget.',
  freePerMinute: 2 * BOOKINGS_PER_WINDOW,
  chargedPerMinute: 2 * BUDGET,
  toOutsideAddressesPerMinute: 2 * BOOKINGS_PER_WINDOW + 2 * BUDGET,
  // An hour touches 61 throttle windows and two budget windows.
  toOutsideAddressesPerHour: (HOUR_MS / production.rateLimit.windowMs + 1) * BOOKINGS_PER_WINDOW + 2 * BUDGET,
  withinOneThrottleWindowAndOneHour: BOOKINGS_PER_WINDOW + BUDGET,
};

const results = [];
for (const [name, straddles] of [
  ['within one hour', false],
  ['straddling an hour', true],
] as const) {
  results.push(await scenario(name, straddles));
}
process.stdout.write(
  `${JSON.stringify(
    {
      rules: {
        guestsPerBooking: MAX_GUESTS_PER_BOOKING,
        bookingRequestsPerWindow: BOOKINGS_PER_WINDOW,
        throttleWindowMs: production.rateLimit.windowMs,
        mailBudgetPerAddress: BUDGET,
        mailBudgetPerEventType: production.mailLimits.eventType,
        mailBudgetWindowMs: production.mailLimits.windowMs,
      },
      bound,
      measured: results,
    },
    null,
    2,
  )}\n`,
);
process.exit(0);
