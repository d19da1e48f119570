import { SCOPES, type Scope } from '../../http/scopes.js';

/** What each scope lets an app do, in the words the consent screen shows (spec 5.4). */
export const SCOPE_WORDS: Readonly<Record<Scope, string>> = {
  EVENT_TYPE_READ: 'See your event types and their private links',
  EVENT_TYPE_WRITE: 'Create, change and delete your event types and their private links',
  BOOKING_READ: 'See your bookings',
  BOOKING_WRITE: 'Change your bookings: guests, location, no-shows, confirmations and reassignments',
  SCHEDULE_READ: 'See your schedules and out-of-office entries',
  SCHEDULE_WRITE: 'Create, change and delete your schedules and out-of-office entries',
  APPS_READ: 'See your calendars and conferencing apps',
  APPS_WRITE: 'Connect and disconnect your calendars and conferencing apps',
  PROFILE_READ: 'See your profile',
  PROFILE_WRITE: 'Change your profile',
  WEBHOOK_READ: 'See your webhooks',
  WEBHOOK_WRITE: 'Create, change and delete your webhooks',
  VERIFIED_RESOURCES_READ: 'See your verified email addresses and phone numbers',
  VERIFIED_RESOURCES_WRITE: 'Verify email addresses and phone numbers for you',
  TEAM_EVENT_TYPE_READ: "See your teams' event types",
  TEAM_EVENT_TYPE_WRITE: "Create, change and delete your teams' event types",
  TEAM_BOOKING_READ: "See your teams' bookings",
  TEAM_SCHEDULE_READ: "See your team members' schedules",
  TEAM_SCHEDULE_WRITE: "Change your team members' schedules",
  TEAM_PROFILE_READ: 'See your teams',
  TEAM_PROFILE_WRITE: 'Create, change and delete your teams',
  TEAM_MEMBERSHIP_READ: "See your teams' members",
  TEAM_MEMBERSHIP_WRITE: "Add, change and remove your teams' members",
  TEAM_APPS_READ: "See your teams' conferencing apps",
  TEAM_APPS_WRITE: "Connect and disconnect your teams' conferencing apps",
  TEAM_ROUTING_FORM_READ: "See your teams' routing forms and their responses",
  TEAM_ROUTING_FORM_WRITE: "Change your teams' routing-form responses",
  TEAM_WORKFLOW_READ: "See your teams' workflows",
  TEAM_WORKFLOW_WRITE: "Create, change and delete your teams' workflows",
  TEAM_VERIFIED_RESOURCES_READ: "See your teams' verified email addresses and phone numbers",
  TEAM_VERIFIED_RESOURCES_WRITE: "Verify email addresses and phone numbers for your teams",
  ORG_EVENT_TYPE_READ: "See every team event type of your organization",
  ORG_BOOKING_READ: "See your organization's bookings",
  ORG_SCHEDULE_READ: "See schedules across your organization",
  ORG_SCHEDULE_WRITE: "Change schedules across your organization",
  ORG_PROFILE_READ: "See your organization's teams",
  ORG_PROFILE_WRITE: "Create, change and delete your organization's teams",
  ORG_MEMBERSHIP_READ: "See your organization's members and users",
  ORG_MEMBERSHIP_WRITE: "Add, change and remove your organization's members and users",
  ORG_ROUTING_FORM_READ: "See your organization's routing forms and their responses",
  ORG_ROUTING_FORM_WRITE: "Change your organization's routing-form responses",
  ORG_WEBHOOK_READ: "See your organization's webhooks",
  ORG_WEBHOOK_WRITE: "Create, change and delete your organization's webhooks",
};

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** A `scope` parameter: names separated by spaces or commas (spec 5.2), without repeats, in the given order. */
export function parseScopeParameter(value: string): string[] {
  return [...new Set(value.split(/[\s,]+/).filter((name) => name !== ''))];
}
