import type { Static } from 'typebox';
import type { VersionTable } from '../../http/api-version.js';
import { parseDateOverrides, parseWeeklyRules } from './schedule-rules.js';
import type { CreateScheduleBody_2024_06_11, UpdateScheduleBody_2024_06_11 } from './schedules.schemas.js';
import { presentSchedule } from './schedules.presenter.js';
import type { CreateScheduleInput, UpdateScheduleInput } from './schedules.service.js';

type CreateBody = Static<typeof CreateScheduleBody_2024_06_11>;
type UpdateBody = Static<typeof UpdateScheduleBody_2024_06_11>;

interface ScheduleVariant {
  toCreateInput(body: CreateBody): CreateScheduleInput;
  toUpdateInput(body: UpdateBody): UpdateScheduleInput;
  present: typeof presentSchedule;
}

/** Both bodies carry the same rule fields; they are parsed once into the engine's form. */
function parseRuleFields<T extends UpdateBody>(body: T) {
  return {
    ...body,
    availability: body.availability && parseWeeklyRules(body.availability),
    overrides: body.overrides && parseDateOverrides(body.overrides),
  };
}

const v2024_06_11: ScheduleVariant = {
  toCreateInput: parseRuleFields,
  toUpdateInput: parseRuleFields,
  present: presentSchedule,
};

/**
 * Schedules changed shape in 2024-06-11. The reference serves header-less calls with its deprecated
 * 2024-04-15 controller, whose shapes it no longer documents; svc answers every version, and a missing
 * or unknown header, with the documented 2024-06-11 shape instead (fallback below).
 */
export const scheduleVersions: VersionTable<ScheduleVariant> = {
  variants: { '2024-06-11': v2024_06_11 },
  fallback: v2024_06_11,
};
