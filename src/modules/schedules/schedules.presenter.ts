import { presentDateOverrides, presentWeeklyRules } from './schedule-rules.js';
import type { ScheduleView } from './schedules.service.js';

/** `ScheduleOutput_2024_06_11`. */
export function presentSchedule({ schedule, isDefault }: ScheduleView) {
  return {
    id: schedule.id,
    // A schedule has exactly one owner, a user or a team (schedules_one_owner_check).
    ownerId: (schedule.userId ?? schedule.teamId)!,
    name: schedule.name,
    timeZone: schedule.timeZone,
    availability: presentWeeklyRules(schedule.availability),
    isDefault,
    overrides: presentDateOverrides(schedule.overrides),
  };
}
