/**
 * Start-up warm-up of the engine. JavaScript starts interpreted: a process's first slot query ran
 * about ten times slower than later ones (20 ms against 1.5 ms for 50 hosts over 30 days), nearly all
 * of it code not yet compiled, not zone data. `svc serve` runs the engine on built-in queries before
 * it listens, so its first request finds the engine's code compiled, and then forgets the zone tables
 * the warm-up read (a first request still reads its own zones from Intl, which costs little).
 */
import { PLAIN_EVENT_RULES, type BusyBlock, type HostAvailability, type SlotQuery } from './slot-query.js';
import { findSlot } from './slot-check.js';
import { computeSlots } from './slots.js';
import { forgetZoneTables } from './zones.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** Zones with a daylight-saving change in the warm-up's month (the conversion's slow paths) and without. */
const ZONES = ['America/St_Johns', 'Europe/Dublin', 'Asia/Kathmandu', 'Etc/GMT+5'];
/** Four weeks from Friday 2031-03-07: the northern spring changes lie inside. */
const FROM = Date.UTC(2031, 2, 7);
const TO = FROM + 28 * DAY;
const ROUNDS = 6;

/**
 * Eight hosts with weekday rules of a few shapes and a booking every day. Objects are built with the
 * fields in the order the services build them (slots.service.ts buildSlotQuery, slots.repository.ts
 * listBusyBlocks): compiled code is specialised to the shapes it saw.
 */
function hosts(fixedCount: number): HostAvailability[] {
  return Array.from({ length: 8 }, (_, index): HostAvailability => {
    const weeklyRules =
      index % 2 === 0
        ? [{ days: [1, 2, 3, 4, 5], startMinute: 540, endMinute: 1020 }]
        : [
            { days: [1, 2, 3, 4], startMinute: 480, endMinute: 720 },
            { days: [1, 2, 3, 4], startMinute: 780, endMinute: 1050 },
            { days: [6], startMinute: 600, endMinute: 840 },
          ];
    const busy: BusyBlock[] = [];
    for (let day = 0; day < 28; day++) {
      const start = FROM + day * DAY + (13 + ((day + index) % 6)) * 60 * MINUTE;
      const end = start + (30 + 15 * (index % 4)) * MINUTE;
      const bufferAfter = index % 3 === 0 ? 10 : 0;
      busy.push({ start, end, bufferBefore: 0, bufferAfter, source: 'booking', eventTypeId: 2, pending: false, blocksWhilePending: false, seatsTaken: 1, bookingUid: `warm-up-${index}-${day}` });
    }
    const schedule = { timeZone: ZONES[index % ZONES.length]!, weeklyRules, overrides: index === 3 ? [{ date: '2031-03-18', startMinute: 0, endMinute: 0 }] : [] };
    return { userId: index + 1, schedule, fixed: index < fixedCount, groupId: null, busy };
  });
}

function query(hostList: HostAvailability[], overrides: Partial<SlotQuery> = {}): SlotQuery {
  return {
    ...PLAIN_EVENT_RULES,
    slotInterval: 15,
    minimumBookingNotice: 60,
    now: FROM - DAY,
    from: FROM,
    to: TO,
    eventTypeId: 1,
    duration: 30,
    organizerTimeZone: ZONES[0]!,
    weekStart: 1,
    hosts: hostList,
    limitBookings: [],
    teamLimits: null,
    ignoreBookingUid: null,
    bookerLimit: null,
    ...overrides,
  };
}

/**
 * Runs the engine as requests do (round robin, collective, one host with limits, the booking-time
 * check) a few times, then drops the zone tables it filled. Returns the slots listed, so that a caller
 * can tell it ran.
 */
export function warmUpEngine(): number {
  const queries = [
    query(hosts(0)),
    query(hosts(3)),
    query(hosts(1).slice(0, 1), { bookingLimitsCount: { day: 4, week: 12 }, limitBookings: [{ start: FROM + 2 * DAY + 15 * 60 * MINUTE, end: FROM + 2 * DAY + 930 * MINUTE }] }),
  ];
  let listed = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const each of queries) {
      const slots = computeSlots(each);
      listed += slots.length;
      if (slots.length > 0) findSlot(each, slots[slots.length >> 1]!.start);
    }
  }
  forgetZoneTables();
  return listed;
}
