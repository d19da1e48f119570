/**
 * Whether cancelling a paid booking refunds the booker, under the refund policies of Cal.com's Stripe
 * app: never, always, or up to a number of calendar or business days before the start, counted in the
 * host's time zone.
 */
import { epochOfWallClock, formatWithOffset, offsetMinutes, weekdayOfDayNumber } from '../../scheduling/zones.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const SATURDAY = 6;
const SUNDAY = 0;

export type RefundPolicyKind = 'never' | 'always' | 'days';

export interface RefundPolicy {
  kind: RefundPolicyKind;
  /** For 'days': how many days before the start a cancellation still refunds (a positive integer). */
  days: number | null;
  /** For 'days': true counts calendar days, false counts business days (Monday to Friday). */
  calendarDays: boolean;
}

const isWeekend = (dayNo: number) => {
  const weekday = weekdayOfDayNumber(dayNo);
  return weekday === SATURDAY || weekday === SUNDAY;
};

/** The day number `count` business days before `dayNo` (a weekend start steps back to Friday first). */
function businessDaysBefore(dayNo: number, count: number): number {
  let day = dayNo - 1;
  while (isWeekend(day)) day -= 1;
  // From a weekday, five business days back is the same weekday a week earlier.
  let remaining = count - 1;
  day -= Math.floor(remaining / 5) * 7;
  remaining %= 5;
  while (remaining > 0) {
    day -= 1;
    if (!isWeekend(day)) remaining -= 1;
  }
  return day;
}

function daysOf(policy: RefundPolicy): number {
  const { days } = policy;
  if (days === null || !Number.isSafeInteger(days) || days < 1) {
    throw new RangeError(`a 'days' refund policy needs a positive whole number of days, not ${days}`);
  }
  return days;
}

/**
 * The last instant a cancellation still refunds, for a 'days' policy: the start's local wall-clock time
 * in `timeZone`, `days` calendar or business days earlier. A wall-clock time that day skips (DST gap)
 * moves forward by the gap; one it repeats takes the earlier instant. Cancelling at this very instant
 * still refunds. Null for 'always' and 'never', whose answer does not depend on when.
 */
export function refundDeadline(policy: RefundPolicy, start: Date, timeZone: string): Date | null {
  if (policy.kind !== 'days') return null;
  const days = daysOf(policy);
  const startMs = start.getTime();
  // The start's wall-clock time written as if it were UTC, so that day numbers and time of day are plain arithmetic.
  const wall = startMs + offsetMinutes(timeZone, startMs) * MINUTE;
  const startDay = Math.floor(wall / DAY);
  const timeOfDay = wall - startDay * DAY;
  const deadlineDay = policy.calendarDays ? startDay - days : businessDaysBefore(startDay, days);
  return new Date(epochOfWallClock(timeZone, deadlineDay * DAY + timeOfDay));
}

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

/** A span of time in days and hours (minutes when under an hour), for people reading logs. */
function describeSpan(ms: number): string {
  const days = Math.floor(ms / DAY);
  const hours = Math.floor((ms % DAY) / HOUR);
  const minutes = Math.floor((ms % HOUR) / MINUTE);
  if (days > 0) return hours > 0 ? `${plural(days, 'day')} ${plural(hours, 'hour')}` : plural(days, 'day');
  if (hours > 0) return minutes > 0 ? `${plural(hours, 'hour')} ${plural(minutes, 'minute')}` : plural(hours, 'hour');
  return minutes > 0 ? plural(minutes, 'minute') : 'less than a minute';
}

export interface CancellationInput {
  policy: RefundPolicy;
  start: Date;
  /** The host's time zone, in which the policy's days are counted. */
  timeZone: string;
  cancelledAt: Date;
  cancelledBy: 'attendee' | 'host';
}

/**
 * Whether a cancelled paid booking is refunded, and why in a sentence. A cancellation (or decline) by the
 * host always refunds in full: the booker cannot be charged for a meeting the host called off. An
 * attendee's cancellation follows the policy; with 'days' it refunds up to and including the deadline.
 */
export function refundOnCancel(input: CancellationInput): { refund: boolean; reason: string } {
  const { policy, start, timeZone, cancelledAt, cancelledBy } = input;
  if (cancelledBy === 'host') return { refund: true, reason: 'cancelled by the host; the booker is refunded in full whatever the policy' };
  if (policy.kind === 'always') return { refund: true, reason: 'cancelled by the attendee; the policy always refunds' };
  if (policy.kind === 'never') return { refund: false, reason: 'cancelled by the attendee; the policy never refunds' };
  const cancelledMs = cancelledAt.getTime();
  if (Number.isNaN(cancelledMs)) throw new RangeError('cancelledAt is not a valid date');
  const deadline = refundDeadline(policy, start, timeZone)!.getTime();
  const notice = start.getTime() - cancelledMs;
  const when = notice >= 0 ? `${describeSpan(notice)} before the start` : `${describeSpan(-notice)} after the start`;
  const rule = `${plural(daysOf(policy), policy.calendarDays ? 'day' : 'business day')} before (until ${formatWithOffset(deadline, timeZone)})`;
  const refund = cancelledMs <= deadline;
  return { refund, reason: `cancelled ${when}; the policy refunds up to ${rule}` };
}
