import { fieldRejected, invalidField } from '../../lib/errors.js';

/** The triggers every subscription level accepts (spec section 6). */
export const BASE_WEBHOOK_TRIGGERS = [
  'BOOKING_CREATED',
  'BOOKING_PAYMENT_INITIATED',
  'BOOKING_PAID',
  'BOOKING_RESCHEDULED',
  'BOOKING_REQUESTED',
  'BOOKING_CANCELLED',
  'BOOKING_REJECTED',
  'BOOKING_NO_SHOW_UPDATED',
  'FORM_SUBMITTED',
  'MEETING_ENDED',
  'MEETING_STARTED',
  'RECORDING_READY',
  'INSTANT_MEETING',
  'RECORDING_TRANSCRIPTION_GENERATED',
  'OOO_CREATED',
  'AFTER_HOSTS_SVC_VIDEO_NO_SHOW',
  'AFTER_GUESTS_SVC_VIDEO_NO_SHOW',
  'FORM_SUBMITTED_NO_EVENT',
  'DELEGATION_CREDENTIAL_ERROR',
] as const;

/** svc's own triggers, accepted at every level: events the reference announces to no webhook (README, differences). */
export const SVC_WEBHOOK_TRIGGERS = ['BOOKING_REASSIGNED'] as const;

/** Every trigger svc knows, whatever the level. */
export const WEBHOOK_TRIGGERS = [...BASE_WEBHOOK_TRIGGERS, ...SVC_WEBHOOK_TRIGGERS, 'ROUTING_FORM_FALLBACK_HIT', 'WRONG_ASSIGNMENT_REPORT', 'INSTANT_MEETING_ACCEPTED'] as const;

export type WebhookTrigger = (typeof WEBHOOK_TRIGGERS)[number];

/** Where a subscription hangs; each level accepts its own set of triggers. */
export type WebhookLevel = 'user' | 'eventType' | 'teamEventType' | 'organization' | 'oauthClient';

const EVERY_LEVEL = [...BASE_WEBHOOK_TRIGGERS, ...SVC_WEBHOOK_TRIGGERS] as const;

/** The triggers a subscription may list at each level (spec section 6, and svc's own). */
export const TRIGGERS_BY_LEVEL: Record<WebhookLevel, readonly WebhookTrigger[]> = {
  user: EVERY_LEVEL,
  /** Personal event types; team event types are `teamEventType`. */
  eventType: EVERY_LEVEL,
  teamEventType: [...EVERY_LEVEL, 'ROUTING_FORM_FALLBACK_HIT', 'WRONG_ASSIGNMENT_REPORT', 'INSTANT_MEETING_ACCEPTED'],
  organization: EVERY_LEVEL,
  oauthClient: [...EVERY_LEVEL, 'ROUTING_FORM_FALLBACK_HIT', 'WRONG_ASSIGNMENT_REPORT'],
};

const LEVEL_NAMES: Record<WebhookLevel, string> = {
  user: 'user',
  eventType: 'event-type',
  teamEventType: 'team event-type',
  organization: 'organization',
  oauthClient: 'OAuth-client',
};

const known = new Set<string>(WEBHOOK_TRIGGERS);

export function isWebhookTrigger(value: string): value is WebhookTrigger {
  return known.has(value);
}

/** The levels whose subscriptions may list `trigger`, as words ("team event-type and OAuth-client"). */
function levelsAccepting(trigger: WebhookTrigger): string {
  const names = (Object.keys(TRIGGERS_BY_LEVEL) as WebhookLevel[]).filter((level) => TRIGGERS_BY_LEVEL[level].includes(trigger)).map((level) => LEVEL_NAMES[level]);
  return names.length <= 1 ? (names[0] ?? 'no') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * A subscription's `triggers`: at least one, each a known trigger accepted at `level`, none twice.
 * Every refusal is a 400 naming `triggers`.
 */
export function assertTriggers(level: WebhookLevel, triggers: readonly string[]): WebhookTrigger[] {
  const allowed = TRIGGERS_BY_LEVEL[level];
  if (triggers.length === 0) throw invalidField('triggers', 'must list at least one trigger', triggers);
  const seen = new Set<string>();
  for (const trigger of triggers) {
    if (!isWebhookTrigger(trigger)) {
      throw invalidField('triggers', `has an unknown trigger ${JSON.stringify(trigger)}: each value in triggers must be one of the following values: ${allowed.join(', ')}`, triggers);
    }
    if (!allowed.includes(trigger)) {
      throw fieldRejected('triggers', 'trigger_not_allowed', `triggers includes ${trigger}: that trigger is only available for ${levelsAccepting(trigger)} webhooks`, triggers);
    }
    if (seen.has(trigger)) throw invalidField('triggers', `lists ${trigger} more than once`, triggers);
    seen.add(trigger);
  }
  return triggers as WebhookTrigger[];
}

/** The payload versions a subscription may ask for. */
export const WEBHOOK_VERSIONS = ['2021-10-20'] as const;
export type WebhookVersion = (typeof WEBHOOK_VERSIONS)[number];
export const DEFAULT_WEBHOOK_VERSION: WebhookVersion = '2021-10-20';

/** The triggers fired some time after a booking's start by who joined its built-in video (Daily) room. */
export const NO_SHOW_TRIGGERS = ['AFTER_HOSTS_SVC_VIDEO_NO_SHOW', 'AFTER_GUESTS_SVC_VIDEO_NO_SHOW'] as const;
export type NoShowTrigger = (typeof NO_SHOW_TRIGGERS)[number];

export const NO_SHOW_TIME_UNITS = ['minute', 'hour', 'day'] as const;
export type NoShowTimeUnit = (typeof NO_SHOW_TIME_UNITS)[number];

const UNIT_MS: Record<NoShowTimeUnit, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/**
 * The reference schedules nothing for a subscription without `time` and `timeUnit` (its API cannot set
 * them); svc checks such a subscription five minutes after the start instead (README, differences).
 */
export const DEFAULT_NO_SHOW_DELAY = { time: 5, timeUnit: 'minute' } as const;

/** At most a week after the start: Daily keeps a room's sessions, and a room closes a day after its end. */
const MAX_NO_SHOW_DELAY_MS = 7 * UNIT_MS.day;

export function noShowDelayMs(time: number | null, timeUnit: NoShowTimeUnit | null): number {
  return time !== null && timeUnit !== null ? time * UNIT_MS[timeUnit] : DEFAULT_NO_SHOW_DELAY.time * UNIT_MS[DEFAULT_NO_SHOW_DELAY.timeUnit];
}

/** `time` and `timeUnit` as a subscription stores them: both set or both null, at most a week. 400 naming the field otherwise. */
export function assertNoShowDelay(time: number | null, timeUnit: NoShowTimeUnit | null): { time: number | null; timeUnit: NoShowTimeUnit | null } {
  if (time === null && timeUnit !== null) throw invalidField('time', 'must be given with timeUnit', time);
  if (time !== null && timeUnit === null) throw invalidField('timeUnit', 'must be given with time', timeUnit);
  if (time !== null && noShowDelayMs(time, timeUnit) > MAX_NO_SHOW_DELAY_MS) throw invalidField('time', 'must be at most 7 days after the start', time);
  return { time, timeUnit };
}
