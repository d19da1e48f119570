/** OAuth scopes (spec 5.4). A `_READ` scope covers viewing, `_WRITE` creating, editing and deleting. */
export const SCOPES = [
  'EVENT_TYPE_READ', 'EVENT_TYPE_WRITE',
  'BOOKING_READ', 'BOOKING_WRITE',
  'SCHEDULE_READ', 'SCHEDULE_WRITE',
  'APPS_READ', 'APPS_WRITE',
  'PROFILE_READ', 'PROFILE_WRITE',
  'WEBHOOK_READ', 'WEBHOOK_WRITE',
  'VERIFIED_RESOURCES_READ', 'VERIFIED_RESOURCES_WRITE',
  'TEAM_EVENT_TYPE_READ', 'TEAM_EVENT_TYPE_WRITE',
  'TEAM_BOOKING_READ',
  'TEAM_SCHEDULE_READ', 'TEAM_SCHEDULE_WRITE',
  'TEAM_PROFILE_READ', 'TEAM_PROFILE_WRITE',
  'TEAM_MEMBERSHIP_READ', 'TEAM_MEMBERSHIP_WRITE',
  'TEAM_APPS_READ', 'TEAM_APPS_WRITE',
  'TEAM_ROUTING_FORM_READ', 'TEAM_ROUTING_FORM_WRITE',
  'TEAM_WORKFLOW_READ', 'TEAM_WORKFLOW_WRITE',
  'TEAM_VERIFIED_RESOURCES_READ', 'TEAM_VERIFIED_RESOURCES_WRITE',
  'ORG_EVENT_TYPE_READ',
  'ORG_BOOKING_READ',
  'ORG_SCHEDULE_READ', 'ORG_SCHEDULE_WRITE',
  'ORG_PROFILE_READ', 'ORG_PROFILE_WRITE',
  'ORG_MEMBERSHIP_READ', 'ORG_MEMBERSHIP_WRITE',
  'ORG_ROUTING_FORM_READ', 'ORG_ROUTING_FORM_WRITE',
  'ORG_WEBHOOK_READ', 'ORG_WEBHOOK_WRITE',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Does a token granted `granted` cover `required`? An `ORG_` scope also grants the matching `TEAM_` one. */
export function scopesCover(granted: ReadonlySet<string>, required: Scope): boolean {
  if (granted.has(required)) return true;
  return required.startsWith('TEAM_') && granted.has(`ORG_${required.slice('TEAM_'.length)}`);
}

/**
 * The permissions a platform OAuth client is created with (contract 2.2): the scopes its managed users'
 * access tokens, and its own credentials, are checked against.
 */
export const PLATFORM_PERMISSIONS = [
  'EVENT_TYPE_READ', 'EVENT_TYPE_WRITE',
  'BOOKING_READ', 'BOOKING_WRITE',
  'SCHEDULE_READ', 'SCHEDULE_WRITE',
  'APPS_READ', 'APPS_WRITE',
  'PROFILE_READ', 'PROFILE_WRITE',
] as const satisfies readonly Scope[];

export type PlatformPermission = (typeof PLATFORM_PERMISSIONS)[number];

const NON_PLATFORM_SCOPES: readonly Scope[] = SCOPES.filter((scope) => !(PLATFORM_PERMISSIONS as readonly string[]).includes(scope));

/**
 * What a platform client's credentials and its managed users' tokens may reach: the client's own
 * permissions, and every scope outside the platform permissions. The reference checks platform
 * callers against their client's permissions only on routes that name one; elsewhere (webhooks, team
 * and organization routes) the user's own rights decide.
 */
export function platformScopes(permissions: readonly string[]): ReadonlySet<string> {
  return new Set([...permissions, ...NON_PLATFORM_SCOPES]);
}
