import { NO_CREDENTIALS } from './request-guard.js';
import type { ExampleRoute } from './openapi-error-examples.js';

/**
 * The message svc answers with for a reason, as the error examples of the API document show it: the
 * text of the service that throws it, with example values (id 42) where the real one names an id.
 * test/foundation/openapi-examples.test.ts checks each against the throw sites of src/.
 */
export const REASON_MESSAGES: Readonly<Record<string, string>> = {
  calendar_event_not_found: 'Calendar event 3f1c2b9a6d4e not found',
  calendar_connection_invalid: 'The Google Calendar connection holding this event needs to be connected again',
  calendar_provider_failed: 'Google Calendar did not answer as expected (unreachable): timed out after 15000 ms',
  invalid_conferencing_app: 'Invalid conferencing app. Available apps: GOOGLE_MEET.',
  google_calendar_required: 'Google Meet requires a Google Calendar connection.',
  conferencing_app_connected: 'Google Meet is already connected for this user.',
  invalid_return_address: 'returnTo must be an absolute http(s) URL',
  conferencing_app_not_configured: 'Zoom app not found: this svc has none registered (its operator sets SVC_ZOOM_CLIENT_ID and SVC_ZOOM_CLIENT_SECRET)',
  conferencing_state_invalid: 'Invalid `state` query param: start again from GET /v2/conferencing/{app}/oauth/auth-url',
  conferencing_connect_failed: 'Could not connect Zoom: unauthorized: exchanging the authorization code: HTTP 400 invalid_grant',
  conferencing_app_not_connected: 'zoom not connected.',
  stripe_not_configured: 'Stripe app not found: this svc takes no payments (its operator sets STRIPE_SECRET_KEY, STRIPE_CLIENT_ID and STRIPE_WEBHOOK_SECRET)',
  stripe_state_invalid: 'Invalid `state` query param: start again from GET /v2/stripe/connect',
  stripe_connect_denied: 'The Stripe account was not connected: the consent was refused',
  stripe_connect_failed: 'Could not connect Stripe: no code in the callback',
  stripe_not_connected: 'Credentials for stripe not found.',
  stripe_credentials_invalid: 'Invalid stripe credentials.',
  stripe_account_inactive: 'Stripe account is not an active account',
  stripe_unavailable: 'Payment could not be created: Stripe did not answer (timed out); try again',
  stripe_signature_invalid: 'Webhook refused: No signatures found matching the expected signature for payload.',
  payment_not_created: "Payment could not be created: the host's Stripe account is not connected",
  paid_event_type_unsupported: 'A paid event type cannot have seats: svc takes one payment per booking.',
  booking_awaiting_payment: 'Booking with uid=4f6a2c1e waits for its payment: it can be confirmed once paid.',
  push_channel_not_found: 'No live channel with this id and token',
  daily_webhook_not_configured: 'This svc takes no Daily webhooks (SVC_DAILY_WEBHOOK_SECRET is not set)',
  daily_webhook_signature_invalid: 'X-Webhook-Signature does not match the body',
  video_provider_failed: 'Daily did not answer as expected: reading the sessions of the Daily room svc-3q2-7wEvr0bEyWQ8aG5sTA: HTTP 500: Something went wrong',
  booking_has_no_video: 'This booking does not meet on the built-in video.',
  attribute_not_found: 'Attribute not found',
  attribute_option_not_found: 'Attribute option not found',
  attribute_slug_taken: 'An attribute with the slug "region" already exists in this organization',
  attribute_option_slug_taken: 'An option with the slug "eu" already exists in this attribute',
  attribute_options_not_assigned: 'Options provided in assignedOptionIds are not assigned to anyone, or the users are not part of the teams specified in teamIds filter.',
  organization_member_not_found: 'User is not a member of the organization',
  attribute_value_not_supported: 'Attribute type does not support value',
  attribute_assignment_not_found: 'Attribute does not belong to this user',
  routing_form_not_found: 'Routing Form not found',
  workflow_not_found: 'Workflow not found',
  text_provider_not_configured: 'steps[1].action sms_attendee needs an SMS provider, and none is configured (TWILIO_* settings)',
  twilio_not_configured: 'Not Found',
  twilio_signature_invalid: 'The X-Twilio-Signature does not match this request',
  routing_form_disabled: 'This routing form is disabled',
  routing_form_without_fallback: 'This routing form has no fallback route',
  routing_form_response_not_found: 'Routing form response not found',
  routing_form_response_booked: 'Routing form response 42 already led to booking 5a9e8b6b-1047-467d-afe4-e90a25cedf61',
  delegation_credential_exists: 'The organization already has a google delegation credential for acme.example: change it with PATCH',
  delegation_credential_not_working: 'The key could not read the calendars of ada@acme.example, a member of acme.example: unauthorized: granting a token for ada@acme.example to the service account: HTTP 401 (unauthorized_client)',
  delegation_credential_not_found: 'Delegation credential with id 3f1c2a9e-8d7b-4c6a-9e5f-1a2b3c4d5e6f not found',
  calendar_connect_failed: 'Could not add this CalDAV account: unauthorized: the server refused the credentials (401)',
  calendar_connection_not_found: 'Calendar connection with id 42 not found',
  calendar_app_not_configured: 'This svc has no Google Calendar app: its operator sets SVC_GOOGLE_CLIENT_ID and SVC_GOOGLE_CLIENT_SECRET',
  destination_calendar_not_found: 'No connected caldav_calendar calendar with externalId https://dav.example.com/ada/work/',
  calendar_state_invalid: 'Invalid or expired state: start again from GET /v2/calendars/{calendar}/connect',
  calendar_credentials_empty: 'Username or password cannot be empty',
  calendar_credentials_invalid: 'Invalid Ics Feed credentials.',
  calendar_not_connected: 'Credentials for Ics Feed calendar not found.',
  calendar_provider_unavailable: 'ICS feeds cannot be read by this server',
  calendar_type_mismatch: 'Calendar connection 42 is a google_calendar connection',
  calendar_unreadable: 'Ics Feed calendar cannot be read: unreachable: HTTP 500 from https://calendar.example.com',
  selected_calendar_not_found: 'No selected calendar found',
  unknown_calendar: 'Invalid calendar type, available calendars are: google, office365, apple, caldav, ics-feed',
  access_token_expired: 'ACCESS_TOKEN_IS_EXPIRED',
  booking_conflict: "This booking's time is no longer available: another booking holds it.",
  booking_not_found: 'Booking with uid=5a9e8b6b-1047-467d-afe4-e90a25cedf61 was not found in the database',
  booking_not_pending: 'Only a pending booking can be confirmed, and this one is accepted.',
  booking_requires_authentication:
    'checkBookingRequiresAuthentication - request must be authenticated by passing credentials belonging to event type owner, host or team or org admin or owner.',
  draining: 'Shutting down',
  email_taken: 'User with email ada@example.com already exists',
  event_type_not_found: 'Event type with id 42 not found',
  event_type_not_owned: 'User (7) is not the owner of event type (42)',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Media Type',
  idempotency_key_reused: 'This Idempotency-Key was already used with a different request; use a new key for a new request.',
  internal_error: 'Internal server error',
  invalid_api_key: 'Your api key is not valid',
  invitation_for_another_user: 'This invitation is for another account: log in as the user it was sent to.',
  invitation_not_found: 'This invitation link is not valid any more: it has expired, was used, or was withdrawn.',
  missing_secret_key: "Only 'x-svc-client-id' header provided. Please also provide 'x-svc-secret-key' header",
  managed_organization_slug_taken:
    "Organization with slug 'acme-clinics' already exists. Please, either provide a different slug or change name so that the automatically generated slug is different.",
  managed_user_email_taken: 'User with the provided e-mail already exists. Existing user ID=42',
  membership_already_accepted: 'Membership with id 42 is already accepted: only a pending invitation can be declined.',
  membership_exists: 'User with id=8 is already a member of team with id=42',
  membership_not_found: 'Membership with id 42 not found in team 42',
  not_booking_host: 'User not a host of this event or an admin of the booking user',
  not_booking_manager: 'You do not have permission to reassign this booking',
  not_booking_organizer: 'You are not allowed to access this booking',
  not_booking_participant: 'You are not allowed to access this booking',
  not_event_type_member:
    "authenticated user is not owner of event type, does not have memberships in common with owner of the event type, nor does belong to event type's team or org.",
  not_platform_organization: 'Organization with id=42 is not a platform organization.',
  not_platform_organization_admin: 'Only an admin or owner of a platform organization can manage OAuth clients.',
  oauth2_client_not_found: 'OAuth client with id 42 not found',
  oauth_client_not_found: 'OAuth client with ID cm1x2y3z4a5b6c7d8e9f0g1h2 not found',
  oauth_client_not_in_organization:
    'OAuthClientGuard - forbidden. oAuth client with id=cm1x2y3z4a5b6c7d8e9f0g1h2 does not belong to an organization where user with id=7 is an admin or owner.',
  organization_not_found: 'Organization with id=42 not found',
  host_not_team_member:
    'Invalid hosts: 42 are not members of team with id 7. The membership of user 42 (id 9) is pending until they accept it: POST /v2/teams/7/memberships/9/accept, with their own credentials.',
  event_type_no_hosts: "Can't book this team event type because it has no hosts. Please, add at least 1 host to event type with id=42 belonging to team with id=7 and try again.",
  owner_id_admin_only: 'ADMIN required for `ownerId`',
  reservation_duration_needs_auth: 'reservationDuration can only be used for authenticated requests - use access token, api key or OAuth credentials',
  reservation_not_found: 'Slot with uid=5a9e8b6b-1047-467d-afe4-e90a25cedf61 not found',
  role_not_found: 'Role with id 42 within team id 42 not found',
  schedule_not_found: 'Schedule with ID=42 does not exist.',
  schedule_not_owned: 'User with ID=7 does not own schedule with ID=42',
  invalid_ooo_entry: 'Start date must be before end date.',
  ooo_entry_exists: 'Ooo entry already exists: entry 42 covers part of these days.',
  ooo_entry_not_owned: 'This OOO entry does not belong to this user.',
  ooo_entry_not_found: 'OOO entry with id=42 not found',
  slot_booked: "Can't reserve a slot if the event is already booked.",
  system_admin_only: 'Only the system admin can call this endpoint',
  team_not_found: 'Team with id=42 not found',
  team_slug_taken: 'A team with the slug support already exists here. Send another slug.',
  user_not_found: 'User with id 42 not found',
  user_not_in_organization: 'User is not part of the Organization',
  webhook_not_found: 'Webhook (42) not found',
  webhook_not_owned: 'Forbidden resource',
  webhook_subscriber_url_taken: 'Webhook with this subscriber url already exists for this user',
  email_already_verified: 'Email is already verified.',
  phone_already_verified: 'Phone number is already verified.',
  too_many_verification_requests: 'Too many verification codes requested for this address: at most 5 an hour. Try again in 42 seconds.',
  too_many_wrong_codes: 'Too many wrong verification codes: at most 10 an hour. Try again in 42 seconds.',
  invalid_email_verification_code: 'Invalid Verification Code',
  invalid_phone_verification_code: 'Could not verify phone number.',
  verified_email_not_found: 'Verified email with id 42 not found',
  verified_phone_not_found: 'Verified phone number with id 42 not found',
};

/** What an example shows for a reason REASON_MESSAGES lacks. */
export const UNLISTED_MESSAGE = 'See details.reason';

const CALLERS = { apiKey: 'API key', accessToken: 'access token', oauthClient: 'OAuth client', anonymous: 'address (requests without credentials)' } as const;

/** The kind of caller the route's examples assume: its first credential, or none. */
export function exampleCaller(route: Pick<ExampleRoute, 'access'>): keyof typeof CALLERS {
  return route.access?.auth === 'required' ? (route.access.credentials[0] ?? 'anonymous') : 'anonymous';
}

/** The default limit per window of each kind of caller (RATE_LIMIT_*, src/app/config.ts). */
export const DEFAULT_RATE_LIMITS = { apiKey: 120, accessToken: 500, oauthClient: 500, anonymous: 120 } as const;

/** The message of `reason` on `route`; the access refusals name the route's own rule. */
export function reasonMessage(reason: string, route: ExampleRoute): string {
  switch (reason) {
    case 'no_credentials':
      return NO_CREDENTIALS;
    case 'insufficient_scope':
      return `Access token is missing the required scope ${route.access?.scope}`;
    case 'insufficient_role': {
      const where = [route.url.includes(':orgId') ? 'organization with id=42' : null, route.url.includes(':teamId') ? 'team with id=42' : null].filter(Boolean).join(' ');
      return `RolesGuard - user with id=8 does not have the minimum required role=${route.access?.tenant?.role} within ${where}.`;
    }
    case 'rate_limited': {
      const caller = exampleCaller(route);
      return `ThrottlerException: Too many requests. Please try again later. The Default limit is ${DEFAULT_RATE_LIMITS[caller]} requests per 60 s for each ${CALLERS[caller]}; try again in 42 s.`;
    }
    default:
      // A reason without a message here still documents (test/foundation/openapi-examples.test.ts asks for one).
      return REASON_MESSAGES[reason] ?? `${UNLISTED_MESSAGE} (${reason})`;
  }
}
