/**
 * Availability as the engine reads it: weekday numbers and minutes of the day, parsed once on write.
 * Weekdays are 0 = Sunday ... 6 = Saturday (JavaScript's getUTCDay).
 */
export interface WeeklyRule {
  days: number[];
  /** Minutes after local midnight, 0-1439. */
  startMinute: number;
  /** Minutes after local midnight, 1-1440 (1440 = end of the day). */
  endMinute: number;
}

/** Replaces the weekly rules on one local date. startMinute = endMinute = 0 makes the whole day unavailable. */
export interface DateOverride {
  /** Local calendar date in the schedule's zone, YYYY-MM-DD. */
  date: string;
  startMinute: number;
  endMinute: number;
}

// An override ends at minute 0 only when it is a day off: any other ends at 1-1440 (schedule input refuses the rest).
export const isDayOff = (override: DateOverride): boolean => override.endMinute === 0;
