// Who may call what: every route of the API, called by every kind of caller, on their own tenant's
// resource and on another tenant's. What each route should answer comes from the two tables below
// (ROUTE_CLASSES: route -> class; EXPECTED: class x caller x target -> outcome), written from the
// reference's guards, not read from the routes' own declarations. A route missing from ROUTE_CLASSES
// fails the test, so a new route cannot ship without saying who may call it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { created as createdEventType } from '../event-types/helpers.js';
import { insertBooking } from '../support/bookings.js';
import { registeredRoutes } from '../support/routes.js';
import { createMember, createOrganization, markCreatedByOrganization, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';

const CALLERS = ['sysadmin', 'orgOwner', 'orgAdmin', 'orgMember', 'teamAdmin', 'teamMember', 'otherOrgOwner', 'outsider', 'anonymous'] as const;
type Caller = (typeof CALLERS)[number];
/** own: organization A, its team T, standalone team S, and orgMember's personal resources; other: organization B, its team U, standalone team S2 (all otherOrgOwner's); crossed: A's path with B's team. */
type Target = 'own' | 'other' | 'crossed';
/** `ok`: the access check let the call through (any answer but 401 and 403); a number: that exact status. */
type Outcome = 'ok' | 401 | 403 | 404;

type ClassName =
  | 'public'
  | 'user'
  | 'sysadmin'
  | 'personal403'
  | 'personal403AdminOk'
  | 'personal404'
  | 'bookingParticipant'
  | 'bookingOrganizer'
  | 'bookingEventTypeAdmin'
  | 'orgAdmin'
  | 'orgMember'
  | 'orgTeamAdmin'
  | 'orgTeamAdminTeamFirst'
  | 'orgTeamOrgAdmin'
  | 'teamMember'
  | 'teamAdmin'
  | 'teamOwner'
  | 'platformAdmin'
  | 'platformClient';

const ORG_A_MEMBERS: readonly Caller[] = ['orgOwner', 'orgAdmin', 'orgMember', 'teamAdmin', 'teamMember'];

/** The expected outcome of each class of route, by caller and target. */
function expected(className: ClassName, caller: Caller, target: Target): Outcome {
  if (className === 'public') return 'ok';
  if (caller === 'anonymous') return 401;
  const grant = (allowed: readonly Caller[]): Outcome => (caller === 'sysadmin' || allowed.includes(caller) ? 'ok' : 403);
  switch (className) {
    case 'user':
      return 'ok';
    case 'sysadmin':
      return grant([]);
    // Personal resources belong to orgMember: the owner passes, everyone else gets the route's refusal.
    case 'personal403':
      return caller === 'orgMember' ? 'ok' : 403;
    case 'personal403AdminOk':
      return grant(['orgMember']);
    case 'personal404':
      return caller === 'orgMember' ? 'ok' : 404;
    // orgMember's booking, booked by outsider: participants (organizer or attendee) pass.
    case 'bookingParticipant':
      return caller === 'orgMember' || caller === 'outsider' ? 'ok' : 403;
    case 'bookingOrganizer':
      return caller === 'orgMember' ? 'ok' : 403;
    // Reassignment: the organizer (the event type's owner) and the admins of an organization the owner is in.
    case 'bookingEventTypeAdmin':
      return grant(['orgMember', 'orgOwner', 'orgAdmin']);
    // RolesGuard on an organization: its admins and owners (ORG_ADMIN) or all its members (ORG_MEMBER).
    case 'orgAdmin':
    case 'orgTeamOrgAdmin':
      if (target === 'crossed') return caller === 'sysadmin' || caller === 'orgOwner' || caller === 'orgAdmin' ? 404 : 403;
      return grant(target === 'own' ? ['orgOwner', 'orgAdmin'] : ['otherOrgOwner']);
    case 'orgMember':
      return grant(target === 'own' ? ORG_A_MEMBERS : ['otherOrgOwner']);
    // A team of an organization: the organization's admins and owners, and the team's admins and owners.
    case 'orgTeamAdmin':
      if (target === 'crossed') return caller === 'sysadmin' || caller === 'orgOwner' || caller === 'orgAdmin' ? 404 : 403;
      return grant(target === 'own' ? ['orgOwner', 'orgAdmin', 'teamAdmin'] : ['otherOrgOwner']);
    // The team schedule routes check IsTeamInOrg before the role: another organization's team is 404 to anyone.
    case 'orgTeamAdminTeamFirst':
      if (target === 'crossed') return 404;
      return grant(target === 'own' ? ['orgOwner', 'orgAdmin', 'teamAdmin'] : ['otherOrgOwner']);
    // Standalone teams: S is owned by orgOwner, with teamAdmin (ADMIN) and teamMember (MEMBER); S2 by otherOrgOwner.
    case 'teamMember':
      return grant(target === 'own' ? ['orgOwner', 'teamAdmin', 'teamMember'] : ['otherOrgOwner']);
    case 'teamAdmin':
      return grant(target === 'own' ? ['orgOwner', 'teamAdmin'] : ['otherOrgOwner']);
    case 'teamOwner':
      return grant(target === 'own' ? ['orgOwner'] : ['otherOrgOwner']);
    // OAuth clients: admins and owners of a platform organization (A and B both are), with an API key.
    case 'platformAdmin':
      return grant(['orgOwner', 'orgAdmin', 'otherOrgOwner']);
    // One client: the admins and owners of its organization (own: A's client; other: B's).
    case 'platformClient':
      return grant(target === 'own' ? ['orgOwner', 'orgAdmin'] : ['otherOrgOwner']);
  }
}

/** Every route (method and pattern; HEAD follows GET) and its class. */
const ROUTE_CLASSES: Record<string, ClassName> = {
  'GET /health': 'public',
  'GET /': 'public',
  'GET /favicon.ico': 'public',
  'GET /ready': 'public',
  'GET /metrics': 'public',
  'POST /v2/calendars/google/notifications': 'public',
  'POST /v2/conferencing/daily/webhook': 'public',
  'POST /v2/calendars/office365/notifications': 'public',
  'GET /v2/me': 'user',
  'GET /v2/me/ooo': 'user',
  'POST /v2/me/ooo': 'user',
  'PATCH /v2/me/ooo/:oooId': 'personal403',
  'DELETE /v2/me/ooo/:oooId': 'personal403',
  'PATCH /v2/me': 'user',
  'PUT /v2/me/password': 'user',
  'POST /v2/api-keys/refresh': 'user',
  'POST /v2/admin/users': 'sysadmin',
  'GET /v2/admin/users': 'sysadmin',
  'DELETE /v2/admin/users/:id': 'sysadmin',
  'POST /v2/admin/organizations': 'sysadmin',
  'GET /v2/admin/organizations': 'sysadmin',
  'GET /v2/admin/organizations/:orgId': 'sysadmin',
  'PATCH /v2/admin/organizations/:orgId': 'sysadmin',
  'DELETE /v2/admin/organizations/:orgId': 'sysadmin',
  'POST /v2/schedules': 'user',
  'GET /v2/schedules': 'user',
  'GET /v2/schedules/default': 'user',
  'GET /v2/schedules/:scheduleId': 'personal403',
  'PATCH /v2/schedules/:scheduleId': 'personal403',
  'DELETE /v2/schedules/:scheduleId': 'personal403',
  'GET /v2/slots': 'public',
  'POST /v2/slots/reservations': 'public',
  'GET /v2/slots/reservations/:uid': 'public',
  'PATCH /v2/slots/reservations/:uid': 'public',
  'DELETE /v2/slots/reservations/:uid': 'public',
  'POST /v2/event-types': 'user',
  'GET /v2/event-types': 'public',
  'GET /v2/event-types/:eventTypeId': 'personal404',
  'PATCH /v2/event-types/:eventTypeId': 'personal404',
  'DELETE /v2/event-types/:eventTypeId': 'personal404',
  'GET /v2/event-types/:eventTypeId/calendar-invites': 'personal404',
  'PATCH /v2/event-types/:eventTypeId/calendar-invites': 'personal404',
  'GET /v2/teams/:teamId/event-types/:eventTypeId/calendar-invites': 'teamAdmin',
  'PATCH /v2/teams/:teamId/event-types/:eventTypeId/calendar-invites': 'teamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId/calendar-invites': 'orgTeamAdmin',
  'PATCH /v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId/calendar-invites': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/calendar-invites': 'orgAdmin',
  'PATCH /v2/organizations/:orgId/calendar-invites': 'orgAdmin',
  'POST /v2/event-types/:eventTypeId/webhooks': 'personal403',
  'GET /v2/event-types/:eventTypeId/webhooks': 'personal403',
  'DELETE /v2/event-types/:eventTypeId/webhooks': 'personal403',
  'GET /v2/event-types/:eventTypeId/webhooks/:webhookId': 'personal403',
  'PATCH /v2/event-types/:eventTypeId/webhooks/:webhookId': 'personal403',
  'DELETE /v2/event-types/:eventTypeId/webhooks/:webhookId': 'personal403',
  'GET /v2/event-types/:eventTypeId/webhooks/:webhookId/deliveries': 'personal403',
  'POST /v2/event-types/:eventTypeId/webhooks/:webhookId/deliveries/:deliveryId/resend': 'personal403',
  'POST /v2/bookings': 'public',
  'GET /v2/bookings': 'user',
  'GET /v2/bookings/:bookingUid': 'public',
  'POST /v2/bookings/:bookingUid/cancel': 'public',
  'POST /v2/bookings/:bookingUid/reschedule': 'public',
  'GET /v2/bookings/:bookingUid/calendar-links': 'bookingParticipant',
  'GET /v2/bookings/:bookingUid/references': 'bookingOrganizer',
  'GET /v2/bookings/:bookingUid/conferencing-sessions': 'bookingEventTypeAdmin',
  'GET /v2/bookings/:bookingUid/recordings': 'bookingEventTypeAdmin',
  'GET /v2/bookings/:bookingUid/transcripts': 'bookingEventTypeAdmin',
  'POST /v2/bookings/:bookingUid/confirm': 'bookingOrganizer',
  'POST /v2/bookings/:bookingUid/decline': 'bookingOrganizer',
  'POST /v2/bookings/:bookingUid/reassign': 'bookingEventTypeAdmin',
  'POST /v2/bookings/:bookingUid/reassign/:userId': 'bookingEventTypeAdmin',
  'POST /v2/bookings/:bookingUid/mark-absent': 'bookingOrganizer',
  'POST /v2/bookings/:bookingUid/guests': 'bookingParticipant',
  'PATCH /v2/bookings/:bookingUid/location': 'bookingOrganizer',
  'POST /v2/webhooks': 'user',
  'GET /v2/calendars': 'user',
  'POST /v2/calendars/ics-feed/save': 'user',
  'GET /v2/calendars/ics-feed/check': 'user',
  'GET /v2/calendars/busy-times': 'user',
  'POST /v2/calendars/:calendar/credentials': 'user',
  'GET /v2/calendars/:calendar/connect': 'user',
  // The provider's redirect: who connects is the sealed state's user (a request without one is refused as 400).
  'GET /v2/calendars/:calendar/save': 'public',
  'GET /v2/calendars/:calendar/check': 'user',
  'POST /v2/calendars/:calendar/disconnect': 'user',
  'GET /v2/conferencing': 'user',
  'POST /v2/conferencing/:app/connect': 'user',
  'GET /v2/conferencing/:app/oauth/auth-url': 'user',
  'GET /v2/conferencing/:app/oauth/callback': 'public',
  'POST /v2/conferencing/:app/default': 'user',
  'GET /v2/conferencing/default': 'user',
  'DELETE /v2/conferencing/:app/disconnect': 'user',
  'GET /v2/organizations/:orgId/teams/:teamId/conferencing': 'orgTeamAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/conferencing/:app/connect': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/conferencing/:app/oauth/auth-url': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/conferencing/:app/oauth/callback': 'orgTeamAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/conferencing/:app/default': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/conferencing/default': 'orgTeamAdmin',
  'DELETE /v2/organizations/:orgId/teams/:teamId/conferencing/:app/disconnect': 'orgTeamAdmin',
  'GET /v2/stripe/connect': 'user',
  'GET /v2/stripe/save': 'public',
  'GET /v2/stripe/check': 'user',
  'POST /v2/stripe/webhook': 'public',
  'GET /v2/organizations/:orgId/teams/:teamId/stripe/connect': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/stripe/save': 'public',
  'GET /v2/organizations/:orgId/teams/:teamId/stripe/check': 'orgTeamAdmin',
  'POST /v2/selected-calendars': 'user',
  'PUT /v2/destination-calendars': 'user',
  'GET /v2/calendars/:calendar/event/:eventUid': 'user',
  'PATCH /v2/calendars/:calendar/events/:eventUid': 'user',
  'DELETE /v2/selected-calendars': 'user',
  'GET /v2/webhooks': 'user',
  'GET /v2/webhooks/:webhookId': 'personal403AdminOk',
  'PATCH /v2/webhooks/:webhookId': 'personal403AdminOk',
  'DELETE /v2/webhooks/:webhookId': 'personal403AdminOk',
  'GET /v2/webhooks/:webhookId/deliveries': 'personal403AdminOk',
  'POST /v2/webhooks/:webhookId/deliveries/:deliveryId/resend': 'personal403AdminOk',
  'POST /v2/teams': 'user',
  'GET /v2/teams': 'user',
  'GET /v2/teams/:teamId': 'teamMember',
  'PATCH /v2/teams/:teamId': 'teamOwner',
  'DELETE /v2/teams/:teamId': 'teamOwner',
  'POST /v2/teams/:teamId/memberships': 'teamAdmin',
  'GET /v2/teams/:teamId/memberships': 'teamAdmin',
  'POST /v2/teams/:teamId/invite': 'teamAdmin',
  'GET /v2/teams/:teamId/memberships/:membershipId': 'teamAdmin',
  'PATCH /v2/teams/:teamId/memberships/:membershipId': 'teamAdmin',
  'DELETE /v2/teams/:teamId/memberships/:membershipId': 'teamAdmin',
  // The invitee answers their own pending membership; anyone else's is a 404 (the ids here name none).
  'POST /v2/teams/:teamId/memberships/:membershipId/accept': 'user',
  'POST /v2/teams/:teamId/memberships/:membershipId/decline': 'user',
  'POST /v2/organizations/:orgId/memberships/:membershipId/accept': 'user',
  'POST /v2/organizations/:orgId/memberships/:membershipId/decline': 'user',
  'POST /v2/organizations/:orgId/teams/:teamId/memberships/:membershipId/accept': 'user',
  'POST /v2/organizations/:orgId/teams/:teamId/memberships/:membershipId/decline': 'user',
  'POST /v1/teams': 'user',
  'GET /v2/organizations/:orgId/teams': 'orgAdmin',
  'POST /v2/organizations/:orgId/teams': 'orgAdmin',
  'GET /v2/organizations/:orgId/teams/me': 'orgMember',
  'GET /v2/organizations/:orgId/teams/:teamId': 'orgTeamAdmin',
  'PATCH /v2/organizations/:orgId/teams/:teamId': 'orgTeamOrgAdmin',
  'DELETE /v2/organizations/:orgId/teams/:teamId': 'orgTeamOrgAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/invite': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/memberships': 'orgTeamAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/memberships': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/memberships/:membershipId': 'orgTeamAdmin',
  'PATCH /v2/organizations/:orgId/teams/:teamId/memberships/:membershipId': 'orgTeamAdmin',
  'DELETE /v2/organizations/:orgId/teams/:teamId/memberships/:membershipId': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/memberships': 'orgAdmin',
  'POST /v2/organizations/:orgId/memberships': 'orgAdmin',
  'GET /v2/organizations/:orgId/memberships/:membershipId': 'orgAdmin',
  'PATCH /v2/organizations/:orgId/memberships/:membershipId': 'orgAdmin',
  'DELETE /v2/organizations/:orgId/memberships/:membershipId': 'orgAdmin',
  'GET /v2/teams/:teamId/schedules': 'teamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/schedules': 'orgTeamAdminTeamFirst',
  'GET /v2/organizations/:orgId/teams/:teamId/users/:userId/schedules': 'orgTeamAdminTeamFirst',
  'GET /v2/teams/:teamId/bookings': 'teamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/bookings': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/bookings/:bookingUid/references': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/bookings': 'orgAdmin',
  'GET /v2/organizations/:orgId/users/:userId/bookings': 'orgAdmin',
  'GET /v2/organizations/:orgId/users': 'orgAdmin',
  'POST /v2/organizations/:orgId/users': 'orgAdmin',
  'PATCH /v2/organizations/:orgId/users/:userId': 'orgAdmin',
  'DELETE /v2/organizations/:orgId/users/:userId': 'orgAdmin',
  'GET /v2/organizations/:orgId/schedules': 'orgAdmin',
  'POST /v2/organizations/:orgId/users/:userId/schedules': 'orgAdmin',
  'GET /v2/organizations/:orgId/users/:userId/schedules': 'orgAdmin',
  'GET /v2/organizations/:orgId/users/:userId/schedules/:scheduleId': 'orgAdmin',
  'PATCH /v2/organizations/:orgId/users/:userId/schedules/:scheduleId': 'orgAdmin',
  'DELETE /v2/organizations/:orgId/users/:userId/schedules/:scheduleId': 'orgAdmin',
  'GET /v2/organizations/:orgId/ooo': 'orgAdmin',
  'GET /v2/organizations/:orgId/attributes': 'orgMember',
  'POST /v2/organizations/:orgId/attributes': 'orgAdmin',
  'GET /v2/organizations/:orgId/attributes/:attributeId': 'orgMember',
  'PATCH /v2/organizations/:orgId/attributes/:attributeId': 'orgAdmin',
  'DELETE /v2/organizations/:orgId/attributes/:attributeId': 'orgAdmin',
  'POST /v2/organizations/:orgId/attributes/:attributeId/options': 'orgAdmin',
  'GET /v2/organizations/:orgId/attributes/:attributeId/options': 'orgMember',
  'PATCH /v2/organizations/:orgId/attributes/:attributeId/options/:optionId': 'orgAdmin',
  'DELETE /v2/organizations/:orgId/attributes/:attributeId/options/:optionId': 'orgAdmin',
  'GET /v2/organizations/:orgId/attributes/:attributeId/options/assigned': 'orgMember',
  'GET /v2/organizations/:orgId/attributes/slugs/:attributeSlug/options/assigned': 'orgMember',
  'POST /v2/organizations/:orgId/attributes/options/:userId': 'orgAdmin',
  'GET /v2/organizations/:orgId/attributes/options/:userId': 'orgMember',
  'DELETE /v2/organizations/:orgId/attributes/options/:userId/:attributeOptionId': 'orgAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/routing-forms': 'orgTeamAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/routing-forms': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/routing-forms/:routingFormId': 'orgTeamAdmin',
  'PATCH /v2/organizations/:orgId/teams/:teamId/routing-forms/:routingFormId': 'orgTeamAdmin',
  'DELETE /v2/organizations/:orgId/teams/:teamId/routing-forms/:routingFormId': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/routing-forms/:routingFormId/responses': 'orgTeamAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/routing-forms/:routingFormId/responses': 'orgTeamAdmin',
  'PATCH /v2/organizations/:orgId/teams/:teamId/routing-forms/:routingFormId/responses/:responseId': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/routing-forms': 'orgAdmin',
  'GET /v2/organizations/:orgId/routing-forms/:routingFormId/responses': 'orgAdmin',
  'POST /v2/organizations/:orgId/routing-forms/:routingFormId/responses': 'orgAdmin',
  'PATCH /v2/organizations/:orgId/routing-forms/:routingFormId/responses/:responseId': 'orgAdmin',
  'POST /v2/routing-forms/:routingFormId/calculate-slots': 'public',
  'POST /v2/routing-forms/:routingFormId/responses': 'public',
  'GET /v2/organizations/:orgId/teams/:teamId/workflows': 'orgTeamAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/workflows': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/workflows/:workflowId': 'orgTeamAdmin',
  'PATCH /v2/organizations/:orgId/teams/:teamId/workflows/:workflowId': 'orgTeamAdmin',
  'DELETE /v2/organizations/:orgId/teams/:teamId/workflows/:workflowId': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/workflows/routing-form': 'orgTeamAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/workflows/routing-form': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/workflows/:workflowId/routing-form': 'orgTeamAdmin',
  'PATCH /v2/organizations/:orgId/teams/:teamId/workflows/:workflowId/routing-form': 'orgTeamAdmin',
  'DELETE /v2/organizations/:orgId/teams/:teamId/workflows/:workflowId/routing-form': 'orgTeamAdmin',
  'POST /v2/text-messages/twilio/status': 'public',
  'GET /v2/organizations/:orgId/users/:userId/ooo': 'orgAdmin',
  'POST /v2/organizations/:orgId/users/:userId/ooo': 'orgAdmin',
  'PATCH /v2/organizations/:orgId/users/:userId/ooo/:oooId': 'orgAdmin',
  'DELETE /v2/organizations/:orgId/users/:userId/ooo/:oooId': 'orgAdmin',
  'POST /v2/organizations/:orgId/delegation-credentials': 'orgAdmin',
  'PATCH /v2/organizations/:orgId/delegation-credentials/:credentialId': 'orgAdmin',
  'GET /v2/organizations/:orgId/webhooks': 'orgAdmin',
  'POST /v2/organizations/:orgId/webhooks': 'orgAdmin',
  'GET /v2/organizations/:orgId/webhooks/:webhookId': 'orgAdmin',
  'PATCH /v2/organizations/:orgId/webhooks/:webhookId': 'orgAdmin',
  'DELETE /v2/organizations/:orgId/webhooks/:webhookId': 'orgAdmin',
  'POST /v2/organizations/:orgId/organizations': 'orgAdmin',
  'GET /v2/organizations/:orgId/organizations': 'orgAdmin',
  'GET /v2/organizations/:orgId/organizations/:managedOrganizationId': 'orgAdmin',
  'PATCH /v2/organizations/:orgId/organizations/:managedOrganizationId': 'orgAdmin',
  'DELETE /v2/organizations/:orgId/organizations/:managedOrganizationId': 'orgAdmin',
  'POST /v2/organizations/:orgId/roles': 'orgAdmin',
  'GET /v2/organizations/:orgId/roles': 'orgAdmin',
  'GET /v2/organizations/:orgId/roles/:roleId': 'orgAdmin',
  'PATCH /v2/organizations/:orgId/roles/:roleId': 'orgAdmin',
  'DELETE /v2/organizations/:orgId/roles/:roleId': 'orgAdmin',
  'POST /v2/organizations/:orgId/roles/:roleId/permissions': 'orgAdmin',
  'GET /v2/organizations/:orgId/roles/:roleId/permissions': 'orgAdmin',
  'PUT /v2/organizations/:orgId/roles/:roleId/permissions': 'orgAdmin',
  'DELETE /v2/organizations/:orgId/roles/:roleId/permissions': 'orgAdmin',
  'DELETE /v2/organizations/:orgId/roles/:roleId/permissions/:permission': 'orgAdmin',
  // The reference guards an organization team's roles with ORG_ADMIN, not TEAM_ADMIN.
  'POST /v2/organizations/:orgId/teams/:teamId/roles': 'orgTeamOrgAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/roles': 'orgTeamOrgAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/roles/:roleId': 'orgTeamOrgAdmin',
  'PATCH /v2/organizations/:orgId/teams/:teamId/roles/:roleId': 'orgTeamOrgAdmin',
  'DELETE /v2/organizations/:orgId/teams/:teamId/roles/:roleId': 'orgTeamOrgAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/roles/:roleId/permissions': 'orgTeamOrgAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/roles/:roleId/permissions': 'orgTeamOrgAdmin',
  'PUT /v2/organizations/:orgId/teams/:teamId/roles/:roleId/permissions': 'orgTeamOrgAdmin',
  'DELETE /v2/organizations/:orgId/teams/:teamId/roles/:roleId/permissions': 'orgTeamOrgAdmin',
  'DELETE /v2/organizations/:orgId/teams/:teamId/roles/:roleId/permissions/:permission': 'orgTeamOrgAdmin',
  // Team event types: the team's admins (and the organization's); the lists of one team are public.
  'POST /v2/teams/:teamId/event-types': 'teamAdmin',
  'GET /v2/teams/:teamId/event-types': 'public',
  'GET /v2/teams/:teamId/event-types/:eventTypeId': 'teamAdmin',
  'PATCH /v2/teams/:teamId/event-types/:eventTypeId': 'teamAdmin',
  'DELETE /v2/teams/:teamId/event-types/:eventTypeId': 'teamAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/event-types': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/event-types': 'public',
  'GET /v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId': 'orgTeamAdmin',
  'PATCH /v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId': 'orgTeamAdmin',
  'DELETE /v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/event-types': 'orgAdmin',
  // Private links: the event type's owner (EventTypeOwnershipGuard: 404 to anyone else); a team's, its admins.
  'POST /v2/event-types/:eventTypeId/private-links': 'personal404',
  'GET /v2/event-types/:eventTypeId/private-links': 'personal404',
  'PATCH /v2/event-types/:eventTypeId/private-links/:linkId': 'personal404',
  'DELETE /v2/event-types/:eventTypeId/private-links/:linkId': 'personal404',
  'POST /v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId/private-links': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId/private-links': 'orgTeamAdmin',
  'PATCH /v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId/private-links/:linkId': 'orgTeamAdmin',
  'DELETE /v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId/private-links/:linkId': 'orgTeamAdmin',
  // Team event-type webhooks: IsTeamEventTypeWebhookGuard wants an admin or owner of the team itself.
  'POST /v2/teams/:teamId/event-types/:eventTypeId/webhooks': 'teamAdmin',
  'GET /v2/teams/:teamId/event-types/:eventTypeId/webhooks': 'teamAdmin',
  'DELETE /v2/teams/:teamId/event-types/:eventTypeId/webhooks': 'teamAdmin',
  'GET /v2/teams/:teamId/event-types/:eventTypeId/webhooks/:webhookId': 'teamAdmin',
  'PATCH /v2/teams/:teamId/event-types/:eventTypeId/webhooks/:webhookId': 'teamAdmin',
  'DELETE /v2/teams/:teamId/event-types/:eventTypeId/webhooks/:webhookId': 'teamAdmin',
  'POST /v2/oauth-clients': 'platformAdmin',
  'GET /v2/oauth-clients': 'platformAdmin',
  'GET /v2/oauth-clients/:clientId': 'platformClient',
  'PATCH /v2/oauth-clients/:clientId': 'platformClient',
  'DELETE /v2/oauth-clients/:clientId': 'platformClient',
  'GET /v2/oauth-clients/:clientId/managed-users': 'platformClient',
  'GET /v2/oauth-clients/:clientId/users': 'platformClient',
  'POST /v2/oauth-clients/:clientId/users': 'platformClient',
  'GET /v2/oauth-clients/:clientId/users/:userId': 'platformClient',
  'PATCH /v2/oauth-clients/:clientId/users/:userId': 'platformClient',
  'DELETE /v2/oauth-clients/:clientId/users/:userId': 'platformClient',
  'POST /v2/oauth-clients/:clientId/users/:userId/force-refresh': 'platformClient',
  'POST /v2/oauth/:clientId/refresh': 'platformClient',
  'POST /v2/oauth-clients/:clientId/webhooks': 'platformClient',
  'GET /v2/oauth-clients/:clientId/webhooks': 'platformClient',
  'DELETE /v2/oauth-clients/:clientId/webhooks': 'platformClient',
  'GET /v2/oauth-clients/:clientId/webhooks/:webhookId': 'platformClient',
  'PATCH /v2/oauth-clients/:clientId/webhooks/:webhookId': 'platformClient',
  'DELETE /v2/oauth-clients/:clientId/webhooks/:webhookId': 'platformClient',
  // Third-party OAuth clients: registered by any user (an unknown id is a 404 to everyone), reviewed by the system admin.
  'POST /v2/auth/oauth2/clients': 'user',
  'GET /v2/auth/oauth2/clients': 'user',
  'GET /v2/auth/oauth2/clients/:clientId': 'user',
  'DELETE /v2/auth/oauth2/clients/:clientId': 'user',
  'GET /v2/admin/oauth2-clients': 'sysadmin',
  'PATCH /v2/admin/oauth2-clients/:clientId': 'sysadmin',
  // Verified resources: a user's own; a team's for its admins (RolesGuard TEAM_ADMIN), an organization team's also for the organization's.
  'POST /v2/verified-resources/emails/verification-code/request': 'user',
  'POST /v2/verified-resources/emails/verification-code/verify': 'user',
  'GET /v2/verified-resources/emails': 'user',
  'GET /v2/verified-resources/emails/:id': 'user',
  'POST /v2/verified-resources/phones/verification-code/request': 'user',
  'POST /v2/verified-resources/phones/verification-code/verify': 'user',
  'GET /v2/verified-resources/phones': 'user',
  'GET /v2/verified-resources/phones/:id': 'user',
  'POST /v2/teams/:teamId/verified-resources/emails/verification-code/request': 'teamAdmin',
  'POST /v2/teams/:teamId/verified-resources/emails/verification-code/verify': 'teamAdmin',
  'GET /v2/teams/:teamId/verified-resources/emails': 'teamAdmin',
  'GET /v2/teams/:teamId/verified-resources/emails/:id': 'teamAdmin',
  'POST /v2/teams/:teamId/verified-resources/phones/verification-code/request': 'teamAdmin',
  'POST /v2/teams/:teamId/verified-resources/phones/verification-code/verify': 'teamAdmin',
  'GET /v2/teams/:teamId/verified-resources/phones': 'teamAdmin',
  'GET /v2/teams/:teamId/verified-resources/phones/:id': 'teamAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/verified-resources/emails/verification-code/request': 'orgTeamAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/verified-resources/emails/verification-code/verify': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/verified-resources/emails': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/verified-resources/emails/:id': 'orgTeamAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/verified-resources/phones/verification-code/request': 'orgTeamAdmin',
  'POST /v2/organizations/:orgId/teams/:teamId/verified-resources/phones/verification-code/verify': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/verified-resources/phones': 'orgTeamAdmin',
  'GET /v2/organizations/:orgId/teams/:teamId/verified-resources/phones/:id': 'orgTeamAdmin',
};

const isPluginRoute = (method: string, url: string) => url === '/docs' || url.startsWith('/docs/') || method === 'OPTIONS' || method === 'HEAD';
/**
 * The OAuth protocol endpoints and the web pages do not take the API's callers: clients authenticate with
 * their own credentials in the request, browsers with a session cookie and a CSRF token. Their refusals
 * are tested in test/oauth/ (authorization, clients-and-endpoints, browser), test/teams/invitations.test.ts and
 * test/conferencing/video-no-shows.test.ts; the booking pages act through the public API as an anonymous
 * caller (test/web/booking-pages.test.ts).
 */
const OAUTH_PROTOCOL = /^(POST \/v2\/auth\/oauth2\/(token|revoke|introspect|clients\/:clientId\/token)|GET \/\.well-known\/oauth-authorization-server|(GET|POST) \/(auth|settings)\/.*|GET \/teams|POST \/teams\/invitations|GET \/video\/:bookingUid|(GET|POST) \/(:username\/:slug|team\/:teamSlug\/:slug|org\/:orgSlug\/team\/:teamSlug\/:slug|d\/:linkId\/:slug|reschedule\/:bookingUid)|GET \/booking\/:bookingUid(\/ics)?|POST \/booking\/:bookingUid\/cancel|GET \/booker\.js)$/;
const isOutsideMatrix = (method: string, url: string) => isPluginRoute(method, url) || OAUTH_PROTOCOL.test(`${method} ${url}`);
const MISSING = 999_999;

/**
 * Bodies for calls that write: a validation failure where the route checks access before validation
 * (nothing is written), else a valid body whose effect is harmless (ownership of personal resources is
 * checked by their services, after validation).
 */
const BODIES: Record<string, unknown> = {
  'POST /v2/api-keys/refresh': { apiKeyDaysValid: 0 },
  'POST /v2/bookings/:bookingUid/cancel': { cancellationReason: 5 },
  'POST /v2/bookings/:bookingUid/decline': { reason: 'matrix' },
  'POST /v2/bookings/:bookingUid/mark-absent': { host: true },
  'PUT /v2/me/password': { password: 'short' },
  'POST /v2/bookings/:bookingUid/guests': { guests: [{ email: 'matrix-guest@example.com', name: 'Matrix Guest' }] },
  'PATCH /v2/bookings/:bookingUid/location': { location: { type: 'address', address: '1 Matrix Road' } },
  'POST /v2/event-types/:eventTypeId/webhooks': { subscriberUrl: 'https://example.com/matrix', active: false, triggers: ['BOOKING_CREATED'] },
  'POST /v2/oauth-clients': { name: 'Matrix', redirectUris: [], permissions: [] },
  'PATCH /v2/oauth-clients/:clientId': { permissions: ['*'] },
};

/** The version header of the routes that exist only in a newer version. */
const versionOf = (url: string) => (url.startsWith('/v2/bookings') ? '2024-08-13' : undefined);

describe('authorization matrix: every route x every caller x own and other tenant', () => {
  let api: TestApp;
  const keys = {} as Record<Caller, string | undefined>;
  const users = {} as Record<Exclude<Caller, 'sysadmin' | 'anonymous'>, Member>;
  const ids = {} as Record<Exclude<Target, 'crossed'>, Record<string, string | number>>;

  before(async () => {
    api = await createTestApp();
    for (const caller of ['orgAdmin', 'orgMember', 'teamAdmin', 'teamMember', 'outsider'] as const) users[caller] = await createMember(api);
    // Platform organizations, so that their managed-organization routes answer their admins.
    const a = await createOrganization(api, { isPlatform: true });
    const b = await createOrganization(api, { isPlatform: true });
    users.orgOwner = a.owner;
    users.otherOrgOwner = b.owner;
    for (const caller of CALLERS) keys[caller] = caller === 'sysadmin' ? ADMIN_API_KEY : caller === 'anonymous' ? undefined : users[caller].apiKey;
    const send = async (method: string, path: string, key: string, body?: unknown) => {
      const response = await api.request(method, path, { key, ...(body !== undefined ? { body } : {}) });
      assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${response.text}`);
      return response.body.data ?? response.body;
    };
    /** Invites `caller` through `path` (a memberships route) and has them accept. */
    const join = async (path: string, key: string, caller: keyof typeof users, role: string) => {
      const membership = await send('POST', path, key, { userId: users[caller].user.id, role, accepted: true });
      if (!membership.accepted) await send('POST', `${path}/${membership.id}/accept`, users[caller].apiKey);
    };
    const orgA = a.organization.id;
    for (const [caller, role] of [['orgAdmin', 'ADMIN'], ['orgMember', 'MEMBER'], ['teamAdmin', 'MEMBER'], ['teamMember', 'MEMBER']] as const) {
      await join(`/v2/organizations/${orgA}/memberships`, a.owner.apiKey, caller, role);
    }
    // Team T of organization A is made by the system admin, so orgOwner is not a member of it.
    const teamT = await send('POST', `/v2/organizations/${orgA}/teams`, ADMIN_API_KEY, { name: 'Team T' });
    await join(`/v2/organizations/${orgA}/teams/${teamT.id}/memberships`, a.owner.apiKey, 'teamAdmin', 'ADMIN');
    await join(`/v2/organizations/${orgA}/teams/${teamT.id}/memberships`, a.owner.apiKey, 'teamMember', 'MEMBER');
    const teamU = await send('POST', `/v2/organizations/${b.organization.id}/teams`, b.owner.apiKey, { name: 'Team U' });
    const teamS = await send('POST', '/v2/teams', a.owner.apiKey, { name: 'Standalone S' });
    await join(`/v2/teams/${teamS.id}/memberships`, a.owner.apiKey, 'teamAdmin', 'ADMIN');
    await join(`/v2/teams/${teamS.id}/memberships`, a.owner.apiKey, 'teamMember', 'MEMBER');
    const teamS2 = await send('POST', '/v2/teams', b.owner.apiKey, { name: 'Standalone S2' });

    // orgMember's personal resources; outsider attends its booking.
    const member = users.orgMember;
    const schedule = await api.request('POST', '/v2/schedules', { key: member.apiKey, version: '2024-06-11', body: { name: 'Mine', timeZone: 'Asia/Kathmandu', isDefault: true } });
    const eventType = await createdEventType(api, member.apiKey);
    const webhook = await send('POST', '/v2/webhooks', member.apiKey, { subscriberUrl: 'https://example.com/hook', active: true, triggers: ['BOOKING_CREATED'] });
    const eventTypeWebhook = await send('POST', `/v2/event-types/${eventType.id}/webhooks`, member.apiKey, { subscriberUrl: 'https://example.com/et-hook', active: true, triggers: ['BOOKING_CREATED'] });
    const start = new Date(Date.now() + 3 * 86_400_000);
    start.setUTCHours(10, 0, 0, 0);
    const booking = await insertBooking(api, { userId: member.user.id, eventTypeId: eventType.id, start: start.toISOString(), end: new Date(start.getTime() + 1_800_000).toISOString() });
    await api.runtime.ctx.database.db.execute(`update booking_attendees set email = '${users.outsider.user.email}' where booking_id = ${booking.id}` as never);

    const orgWebhook = (orgId: number, key: string) => send('POST', `/v2/organizations/${orgId}/webhooks`, key, { subscriberUrl: `https://example.com/org-${orgId}`, active: true, triggers: ['BOOKING_CREATED'] });
    const managed = (orgId: number, key: string) => send('POST', `/v2/organizations/${orgId}/organizations`, key, { name: `Managed by ${orgId}` });
    const [orgWebhookA, orgWebhookB, managedA, managedB] = [await orgWebhook(orgA, a.owner.apiKey), await orgWebhook(b.organization.id, b.owner.apiKey), await managed(orgA, a.owner.apiKey), await managed(b.organization.id, b.owner.apiKey)];
    const oauthClient = (orgId: number, key: string) => send('POST', `/v2/oauth-clients?organizationId=${orgId}`, key, { name: 'Matrix client', redirectUris: [], permissions: ['*'] });
    const [clientA, clientB] = [await oauthClient(orgA, a.owner.apiKey), await oauthClient(b.organization.id, b.owner.apiKey)];
    const clientWebhook = (clientId: string, key: string) => send('POST', `/v2/oauth-clients/${clientId}/webhooks`, key, { subscriberUrl: `https://example.com/client-${clientId}`, active: true, triggers: ['BOOKING_CREATED'] });
    const [clientWebhookA, clientWebhookB] = [await clientWebhook(clientA.clientId, a.owner.apiKey), await clientWebhook(clientB.clientId, b.owner.apiKey)];

    const away = (key: string) => send('POST', '/v2/me/ooo', key, { start: '2031-01-06T00:00:00Z', end: '2031-01-07T00:00:00Z' });
    const personal = { oooId: (await away(member.apiKey)).id, scheduleId: schedule.body.data.id, eventTypeId: eventType.id, bookingUid: booking.uid, uid: MISSING, eventUid: MISSING, deliveryId: MISSING, membershipId: MISSING, id: MISSING, roleId: 'no-such-role', permission: 'role.read', webhookId: webhook.id, eventTypeWebhookId: eventTypeWebhook.id, linkId: 'no-such-link', credentialId: 'no-such-credential', attributeId: 'no-such-attribute', attributeSlug: 'no-such-attribute', optionId: 'no-such-option', attributeOptionId: 'no-such-option', routingFormId: 'no-such-form', responseId: MISSING, workflowId: MISSING };
    // userId: a user the organization created who is in its team (teamMember in T; U's owner in U).
    await markCreatedByOrganization(api, users.teamMember.user.id, orgA);
    await markCreatedByOrganization(api, b.owner.user.id, b.organization.id);
    // userId: a user of the organization who is in its team (teamMember in T; U's owner in U).
    ids.own = { ...personal, orgId: orgA, teamId: teamT.id, standaloneTeamId: teamS.id, orgWebhookId: orgWebhookA.id, managedOrganizationId: managedA.id, userId: users.teamMember.user.id, clientId: clientA.clientId, clientWebhookId: clientWebhookA.id, userOooId: (await away(users.teamMember.apiKey)).id };
    ids.other = { ...personal, orgId: b.organization.id, teamId: teamU.id, standaloneTeamId: teamS2.id, orgWebhookId: orgWebhookB.id, managedOrganizationId: managedB.id, userId: b.owner.user.id, clientId: clientB.clientId, clientWebhookId: clientWebhookB.id, userOooId: (await away(b.owner.apiKey)).id };
  });
  after(() => api.close());

  function pathFor(url: string, target: Target): string {
    const values = target === 'crossed' ? { ...ids.own, teamId: ids.other.teamId! } : ids[target];
    return url.replace(/:(\w+)/g, (_, name: string) => {
      if (name === 'teamId' && url.startsWith('/v2/teams/')) return String(values.standaloneTeamId);
      if (name === 'webhookId' && url.startsWith('/v2/event-types/')) return String(values.eventTypeWebhookId);
      if (name === 'webhookId' && url.startsWith('/v2/organizations/')) return String(values.orgWebhookId);
      if (name === 'webhookId' && url.startsWith('/v2/oauth-clients/')) return String(values.clientWebhookId);
      // A user's schedules under an organization: a missing one, so that a call let through changes nothing.
      if (name === 'scheduleId' && url.startsWith('/v2/organizations/')) return String(MISSING);
      // An out-of-office entry of the path's user (orgMember's own under /v2/me).
      if (name === 'oooId' && url.startsWith('/v2/organizations/')) return String(values.userOooId);
      // Calendar connections are the caller's own whatever the target: any provider name serves.
      if (name === 'calendar') return 'caldav';
      // So are conferencing apps.
      if (name === 'app') return 'zoom';
      const value = values[name];
      assert.ok(value !== undefined, `no value for :${name} in ${url}`);
      return String(value);
    });
  }

  /** Destructive calls that would be let through run on a copy of the target, so the fixtures stay. */
  const DESTROYS = new Set(['DELETE /v2/me/ooo/:oooId', 'DELETE /v2/organizations/:orgId/users/:userId/ooo/:oooId', 'DELETE /v2/organizations/:orgId/users/:userId', 'DELETE /v2/organizations/:orgId/webhooks/:webhookId', 'DELETE /v2/organizations/:orgId/organizations/:managedOrganizationId', 'DELETE /v2/teams/:teamId', 'DELETE /v2/organizations/:orgId/teams/:teamId', 'DELETE /v2/admin/organizations/:orgId', 'DELETE /v2/schedules/:scheduleId', 'DELETE /v2/event-types/:eventTypeId', 'DELETE /v2/webhooks/:webhookId', 'DELETE /v2/event-types/:eventTypeId/webhooks', 'DELETE /v2/event-types/:eventTypeId/webhooks/:webhookId', 'DELETE /v2/oauth-clients/:clientId', 'DELETE /v2/oauth-clients/:clientId/webhooks', 'DELETE /v2/oauth-clients/:clientId/webhooks/:webhookId']);

  test('every route has a class in the table', () => {
    const unknown = registeredRoutes(api.runtime.app)
      .filter((route) => !isOutsideMatrix(route.method, route.url))
      .map((route) => `${route.method} ${route.url}`)
      .filter((key) => !(key in ROUTE_CLASSES));
    assert.deepEqual(unknown, [], 'routes with no access class: add them to ROUTE_CLASSES');
  });

  test('each caller gets what the table says, on its own tenant, another tenant, and another tenant\'s team under its own organization', async () => {
    const mismatches: string[] = [];
    let calls = 0;
    for (const route of registeredRoutes(api.runtime.app)) {
      if (isOutsideMatrix(route.method, route.url)) continue;
      const key = `${route.method} ${route.url}`;
      const className = ROUTE_CLASSES[key];
      if (!className) continue;
      const targets: Target[] =
        route.url.includes(':orgId') && route.url.includes(':teamId') ? ['own', 'other', 'crossed'] : route.url.includes(':orgId') || route.url.includes(':clientId') || route.url.startsWith('/v2/teams/') ? ['own', 'other'] : ['own'];
      for (const target of targets) {
        for (const caller of CALLERS) {
          const want = expected(className, caller, target);
          // A call that would destroy a fixture is only made when it is expected to be refused.
          if (want === 'ok' && DESTROYS.has(key)) continue;
          const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : (BODIES[key] ?? {});
          const version = versionOf(route.url);
          const response = await api.request(route.method, pathFor(route.url, target), { ...(keys[caller] ? { key: keys[caller] } : {}), ...(body !== undefined ? { body } : {}), ...(version ? { version } : {}) });
          calls += 1;
          const got = response.status;
          const matches = want === 'ok' ? got !== 401 && got !== 403 : got === want;
          if (!matches) mismatches.push(`${key} [${target}] ${caller}: expected ${want}, got ${got} ${response.body?.error?.message ?? ''}`);
        }
      }
    }
    assert.deepEqual(mismatches, [], `${mismatches.length} of ${calls} calls answered otherwise`);
    assert.ok(calls > 500, `${calls} calls made`);
  });

  test('destructive routes: the callers the table lets through do delete (each on a target of its own)', async () => {
    const member = users.orgMember;
    const owner = users.orgOwner;
    const orgA = ids.own.orgId!;
    for (const caller of ['sysadmin', 'orgOwner', 'orgAdmin'] as const) {
      const team = (await api.request('POST', `/v2/organizations/${orgA}/teams`, { key: ADMIN_API_KEY, body: { name: `Doomed ${caller}` } })).body.data;
      assert.equal((await api.request('DELETE', `/v2/organizations/${orgA}/teams/${team.id}`, { key: keys[caller] })).status, 200, caller);
    }
    for (const caller of ['sysadmin', 'orgOwner'] as const) {
      const team = (await api.request('POST', '/v2/teams', { key: owner.apiKey, body: { name: `Doomed standalone ${caller}` } })).body.data;
      assert.equal((await api.request('DELETE', `/v2/teams/${team.id}`, { key: keys[caller] })).status, 200, caller);
    }
    const schedule = (await api.request('POST', '/v2/schedules', { key: member.apiKey, version: '2024-06-11', body: { name: 'Doomed', timeZone: 'UTC', isDefault: false } })).body.data;
    assert.equal((await api.request('DELETE', `/v2/schedules/${schedule.id}`, { key: member.apiKey })).status, 200);
    const eventType = await createdEventType(api, member.apiKey);
    assert.equal((await api.request('DELETE', `/v2/event-types/${eventType.id}`, { key: member.apiKey })).status, 200);
    for (const caller of ['sysadmin', 'orgMember'] as const) {
      const hook = (await api.request('POST', '/v2/webhooks', { key: member.apiKey, body: { subscriberUrl: `https://example.com/doomed-${caller}`, active: true, triggers: ['BOOKING_CREATED'] } })).body.data;
      assert.equal((await api.request('DELETE', `/v2/webhooks/${hook.id}`, { key: keys[caller] })).status, 200, caller);
    }
    let day = 10;
    const entryOf = async (user: Member) => (await api.request('POST', '/v2/me/ooo', { key: user.apiKey, body: { start: `2031-02-${day}T00:00:00Z`, end: `2031-02-${day++}T00:00:00Z` } })).body.data.id;
    assert.equal((await api.request('DELETE', `/v2/me/ooo/${await entryOf(member)}`, { key: member.apiKey })).status, 200);
    for (const caller of ['sysadmin', 'orgOwner', 'orgAdmin'] as const) {
      const entry = await entryOf(users.teamMember);
      assert.equal((await api.request('DELETE', `/v2/organizations/${orgA}/users/${users.teamMember.user.id}/ooo/${entry}`, { key: keys[caller] })).status, 200, caller);
    }
    const org = await createOrganization(api);
    assert.equal((await api.request('DELETE', `/v2/admin/organizations/${org.organization.id}`, { key: ADMIN_API_KEY })).status, 200);
  });
});
