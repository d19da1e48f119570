// ICS feed micro-benchmark: expandBusyIntervals (pure, in-process) on a generated, seeded calendar of
// 2,000 events over 2026, read for a 400-day window from 2026-01-01 (host zone Europe/Berlin):
//   1,500 single events (30-120 min; a tenth of them all-day, a tenth transparent),
//     500 weekly series (BYDAY one or two days, 30-90 min, 25-52 weeks by COUNT or UNTIL, a fifth of them
//         with two EXDATEs, a tenth with one RECURRENCE-ID override moving an occurrence by two hours).
// Zones as feeds write them: Europe/Berlin with its VTIMEZONE (as Google and Apple include it),
// America/New_York named without one, and UTC.
//   node --import tsx bench/ics-parse.ts   prints one JSON object; progress goes to stderr.
import os from 'node:os';
import { expandBusyIntervals } from '../src/integrations/ics/expand-busy.js';
import { seededRandom } from './engine.js';

const DAY = 86_400_000;
const SINGLES = 1_500;
const SERIES = 500;
const WINDOW_DAYS = 400;
const RUNS = 7;
const WINDOW_FROM = Date.UTC(2026, 0, 1);

const BERLIN_VTIMEZONE = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];

const pad = (value: number) => String(value).padStart(2, '0');
/** 20260314T093000 from a day of 2026 (0-based) and a minute of the day. */
function wall(dayOfYear: number, minuteOfDay: number): string {
  const date = new Date(WINDOW_FROM + dayOfYear * DAY);
  return `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}T${pad(Math.floor(minuteOfDay / 60))}${pad(minuteOfDay % 60)}00`;
}
const dateOnly = (dayOfYear: number) => wall(dayOfYear, 0).slice(0, 8);

/** DTSTART/DTEND-style property for a zone: TZID parameter, or a Z suffix for UTC. */
function timeProperty(name: string, zone: string, value: string): string {
  return zone === 'UTC' ? `${name}:${value}Z` : `${name};TZID=${zone}:${value}`;
}

export function generateCalendar(): { text: string; overrides: number; exdates: number } {
  const random = seededRandom(20260101);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const zones = ['Europe/Berlin', 'Europe/Berlin', 'America/New_York', 'UTC'] as const;
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//svc bench//EN', 'X-WR-CALNAME:Bench', ...BERLIN_VTIMEZONE];
  for (let index = 0; index < SINGLES; index++) {
    const day = Math.floor(random() * 365);
    lines.push('BEGIN:VEVENT', `UID:single-${index}@bench`, 'DTSTAMP:20251201T000000Z', `SUMMARY:Single ${index}`);
    if (random() < 0.1) {
      lines.push(`DTSTART;VALUE=DATE:${dateOnly(day)}`, `DTEND;VALUE=DATE:${dateOnly(day + 1)}`);
    } else {
      const zone = pick(zones);
      const start = 7 * 60 + 15 * Math.floor(random() * 44);
      const minutes = 30 + 15 * Math.floor(random() * 7);
      lines.push(timeProperty('DTSTART', zone, wall(day, start)), timeProperty('DTEND', zone, wall(day, Math.min(start + minutes, 23 * 60 + 59))));
    }
    if (random() < 0.1) lines.push('TRANSP:TRANSPARENT');
    lines.push('END:VEVENT');
  }
  let overrides = 0;
  let exdates = 0;
  const weekdays = ['MO', 'TU', 'WE', 'TH', 'FR'];
  for (let index = 0; index < SERIES; index++) {
    const zone = pick(zones);
    // A Monday in the first half of 2026 (2026-01-05 is one), then the series' first BYDAY day in that week.
    const monday = 4 + 7 * Math.floor(random() * 26);
    const first = Math.floor(random() * 5);
    const days = random() < 0.5 ? [first] : [first, Math.min(4, first + 1 + Math.floor(random() * 3))];
    const start = 8 * 60 + 30 * Math.floor(random() * 18);
    const minutes = 30 + 15 * Math.floor(random() * 5);
    const weeks = 25 + Math.floor(random() * 28);
    const startDay = monday + first;
    const uid = `series-${index}@bench`;
    const rule = random() < 0.5 ? `COUNT=${weeks * days.length}` : `UNTIL=${wall(monday + 7 * weeks, 0)}Z`;
    lines.push(
      'BEGIN:VEVENT',
      `UID:${uid}`,
      'DTSTAMP:20251201T000000Z',
      `SUMMARY:Series ${index}`,
      timeProperty('DTSTART', zone, wall(startDay, start)),
      timeProperty('DTEND', zone, wall(startDay, start + minutes)),
      `RRULE:FREQ=WEEKLY;BYDAY=${[...new Set(days)].map((day) => weekdays[day]).join(',')};${rule}`,
    );
    if (random() < 0.2) {
      lines.push(timeProperty('EXDATE', zone, wall(startDay + 7 * 3, start)), timeProperty('EXDATE', zone, wall(startDay + 7 * 8, start)));
      exdates += 2;
    }
    lines.push('END:VEVENT');
    if (random() < 0.1) {
      const moved = startDay + 7 * 5;
      lines.push(
        'BEGIN:VEVENT',
        `UID:${uid}`,
        'DTSTAMP:20251201T000000Z',
        timeProperty('RECURRENCE-ID', zone, wall(moved, start)),
        timeProperty('DTSTART', zone, wall(moved, start + 120)),
        timeProperty('DTEND', zone, wall(moved, start + 120 + minutes)),
        'END:VEVENT',
      );
      overrides += 1;
    }
  }
  lines.push('END:VCALENDAR');
  return { text: `${lines.join('\r\n')}\r\n`, overrides, exdates };
}

export function runIcsParseBench(log: (message: string) => void) {
  const { text, overrides, exdates } = generateCalendar();
  const window = { from: WINDOW_FROM, to: WINDOW_FROM + WINDOW_DAYS * DAY };
  const timings: number[] = [];
  // CPU time of the process during each call, next to wall time: on a shared machine the two differ.
  const cpuTimings: number[] = [];
  let intervals = 0;
  let skipped = 0;
  for (let run = 0; run < RUNS; run++) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const result = expandBusyIntervals(text, window, 'Europe/Berlin');
    timings.push(performance.now() - started);
    const cpu = process.cpuUsage(cpuBefore);
    cpuTimings.push((cpu.user + cpu.system) / 1000);
    intervals = result.intervals.length;
    skipped = result.skipped.length;
    log(`run ${run + 1}: ${timings[run]!.toFixed(1)} ms wall, ${cpuTimings[run]!.toFixed(1)} ms CPU, ${intervals} intervals`);
  }
  const warm = timings.slice(1).sort((a, b) => a - b);
  const warmCpu = cpuTimings.slice(1).sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    events: SINGLES + SERIES,
    singles: SINGLES,
    weeklySeries: SERIES,
    overrides,
    exdates,
    bytes: Buffer.byteLength(text),
    windowDays: WINDOW_DAYS,
    intervals,
    skipped,
    firstRunMs: round(timings[0]!),
    medianMs: round(warm[Math.floor(warm.length / 2)]!),
    minMs: round(warm[0]!),
    maxMs: round(warm[warm.length - 1]!),
    medianCpuMs: round(warmCpu[Math.floor(warmCpu.length / 2)]!),
    warmRuns: warm.length,
    loadAverage1m: round(os.loadavg()[0]!),
    cpus: os.availableParallelism(),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify(runIcsParseBench((message) => process.stderr.write(`[ics-parse] ${message}\n`)))}\n`);
}
