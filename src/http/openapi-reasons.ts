/**
 * The `details.reason` values svc's services answer with, by route: the API document lists them under
 * each error status (src/http/openapi-errors.ts). test/foundation/openapi.test.ts fails when a service
 * throws a reason missing here.
 */
interface ReasonGroup {
  /** Fastify patterns the group covers: exact, or a prefix ending in `*`. */
  routes: readonly string[];
  /** Methods the group covers (all when omitted). */
  methods?: readonly string[];
  /** Reasons by status; a status listed here is documented for the group's routes even if no rule gives it. */
  reasons: Readonly<Partial<Record<number, readonly string[]>>>;
}

const WRITE = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** A webhook's triggers and subscriber URL are checked where they are set: creating or changing it. */
const WEBHOOK_WRITES = ['POST', 'PATCH'] as const;
const BOOKING_NOT_FOUND = { 404: ['booking_not_found'] };
const BOOKING_TARGET_NOT_FOUND = ['event_type_not_found', 'user_not_found', 'team_not_found', 'organization_not_found'];
const BOOKING_SLOT_REFUSED = ['booking_in_the_past', 'booking_time_out_of_bounds', 'booking_limit_reached', 'slot_unavailable'];
const BOOKING_FIELD_REFUSED = [
  'invalid_booking_field_type',
  'invalid_booking_field_option',
  'missing_booking_field',
  'missing_attendee_email',
  'missing_attendee_phone',
  'location_not_offered',
];

const EVENT_TYPE_WRITES = ['/v2/event-types', '/v2/event-types/:eventTypeId'];
const TEAM_EVENT_TYPE_WRITES = ['/v2/teams/:teamId/event-types', '/v2/teams/:teamId/event-types/:eventTypeId', '/v2/organizations/:orgId/teams/:teamId/event-types', '/v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId'];
const TEAM_EVENT_TYPE_WEBHOOKS = ['/v2/teams/:teamId/event-types/:eventTypeId/webhooks', '/v2/teams/:teamId/event-types/:eventTypeId/webhooks/*'];
const PRIVATE_LINKS = [
  '/v2/event-types/:eventTypeId/private-links',
  '/v2/event-types/:eventTypeId/private-links/:linkId',
  '/v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId/private-links',
  '/v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId/private-links/:linkId',
];

const EVENT_TYPE_CALENDAR_INVITES = [
  '/v2/event-types/:eventTypeId/calendar-invites',
  '/v2/teams/:teamId/event-types/:eventTypeId/calendar-invites',
  '/v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId/calendar-invites',
];

const MEMBERSHIP_ROUTES = [
  '/v2/teams/:teamId/memberships',
  '/v2/teams/:teamId/memberships/:membershipId',
  '/v2/organizations/:orgId/memberships',
  '/v2/organizations/:orgId/memberships/:membershipId',
  '/v2/organizations/:orgId/teams/:teamId/memberships',
  '/v2/organizations/:orgId/teams/:teamId/memberships/:membershipId',
];
/** The invitee's answers to a pending membership (membership-answers.routes.ts). */
const MEMBERSHIP_ANSWERS = ['/v2/teams/:teamId/memberships/:membershipId', '/v2/organizations/:orgId/memberships/:membershipId', '/v2/organizations/:orgId/teams/:teamId/memberships/:membershipId'].flatMap(
  (route) => [`${route}/accept`, `${route}/decline`],
);
/** Refusals of access/role-grants.ts: nobody gives, changes or takes a role beyond their own standing. */
const ROLE_GRANT_REFUSED = ['owner_role_owners_only', 'owner_membership_owners_only', 'member_above_own_role', 'own_role_raise', 'role_above_own', 'permission_not_held'];

/** The `details.reason` values svc's services answer with, by route. */
export const REASON_GROUPS: readonly ReasonGroup[] = [
  { routes: EVENT_TYPE_CALENDAR_INVITES, reasons: { 404: ['event_type_not_found', 'team_not_found'] } },
  { routes: EVENT_TYPE_CALENDAR_INVITES, methods: ['PATCH'], reasons: { 400: ['calendar_invites_empty', 'calendar_invite_template_required', 'managed_event_type_child'] } },
  { routes: ['/v2/organizations/:orgId/calendar-invites'], methods: ['PATCH'], reasons: { 400: ['calendar_invites_empty', 'calendar_invite_template_required'] } },
  { routes: ['/ready'], reasons: { 503: ['draining', 'database_unreachable', 'migrations_pending'] } },
  { routes: ['/v2/calendars/ics-feed/save'], reasons: { 400: ['calendar_provider_unavailable'] } },
  { routes: ['/v2/calendars/:calendar/credentials'], reasons: { 400: ['unknown_calendar', 'calendar_credentials_empty', 'calendar_connect_failed'] } },
  { routes: ['/v2/destination-calendars'], reasons: { 404: ['destination_calendar_not_found'] } },
  { routes: ['/v2/calendars/:calendar/event/:eventUid', '/v2/calendars/:calendar/events/:eventUid'], reasons: { 400: ['calendar_connection_invalid', 'calendar_provider_failed'], 404: ['calendar_event_not_found'] } },
  { routes: ['/v2/calendars/:calendar/connect'], reasons: { 400: ['unknown_calendar', 'calendar_app_not_configured'] } },
  { routes: ['/v2/calendars/:calendar/save'], reasons: { 400: ['unknown_calendar', 'calendar_state_invalid', 'calendar_app_not_configured', 'calendar_connect_failed'] } },
  {
    routes: ['/v2/organizations/:orgId/teams/:teamId/conferencing', '/v2/organizations/:orgId/teams/:teamId/conferencing/*'],
    reasons: { 400: ['invalid_conferencing_app', 'google_calendar_required', 'conferencing_app_connected', 'invalid_return_address', 'conferencing_state_invalid', 'conferencing_connect_failed', 'conferencing_app_not_connected'], 404: ['conferencing_app_not_configured', 'team_not_found'] },
  },
  { routes: ['/v2/conferencing/:app/connect'], reasons: { 400: ['invalid_conferencing_app', 'google_calendar_required', 'conferencing_app_connected'] } },
  { routes: ['/v2/conferencing/:app/oauth/auth-url'], reasons: { 400: ['invalid_conferencing_app', 'invalid_return_address'], 404: ['conferencing_app_not_configured'] } },
  { routes: ['/v2/conferencing/:app/oauth/callback'], reasons: { 400: ['invalid_conferencing_app', 'conferencing_state_invalid', 'conferencing_connect_failed'], 404: ['conferencing_app_not_configured', 'user_not_found', 'team_not_found'] } },
  { routes: ['/v2/conferencing/:app/default', '/v2/conferencing/:app/disconnect'], reasons: { 400: ['invalid_conferencing_app', 'conferencing_app_not_connected'], 404: ['user_not_found'] } },
  { routes: ['/v2/calendars/ics-feed/check', '/v2/calendars/:calendar/check'], reasons: { 400: ['calendar_not_connected', 'calendar_credentials_invalid'], 401: ['calendar_unreadable'] } },
  { routes: ['/v2/calendars/:calendar/check'], reasons: { 400: ['unknown_calendar'] } },
  { routes: ['/v2/calendars/:calendar/disconnect'], reasons: { 400: ['unknown_calendar', 'calendar_type_mismatch'], 404: ['calendar_connection_not_found'] } },
  { routes: ['/v2/selected-calendars'], reasons: { 404: ['calendar_connection_not_found', 'selected_calendar_not_found'] } },
  { routes: ['/v2/auth/oauth2/clients'], methods: ['POST'], reasons: { 400: ['unknown_scope'] } },
  { routes: ['/v2/auth/oauth2/clients/:clientId', '/v2/admin/oauth2-clients/:clientId'], reasons: { 404: ['oauth2_client_not_found'] } },
  { routes: ['/v2/me'], reasons: { 404: ['user_not_found'] } },
  { routes: ['/v2/me'], methods: ['PATCH'], reasons: { 409: ['email_taken', 'username_taken'] } },
  { routes: ['/v2/api-keys/*'], reasons: { 400: ['api_key_validity_conflict'] } },
  { routes: ['/v2/admin/users'], methods: ['POST'], reasons: { 409: ['email_taken', 'username_taken'] } },
  { routes: ['/v2/admin/users/:id'], methods: ['DELETE'], reasons: { 400: ['cannot_delete_self'], 404: ['user_not_found'] } },
  { routes: ['/v2/schedules/:scheduleId'], reasons: { 403: ['schedule_not_owned'], 404: ['schedule_not_found'] } },
  { routes: ['/v2/schedules/:scheduleId'], methods: ['DELETE'], reasons: { 400: ['schedule_not_found'] } },
  { routes: ['/v2/event-types', '/v2/event-types/:eventTypeId'], methods: ['POST', 'PATCH'], reasons: { 400: ['event_type_slug_taken'], 404: ['schedule_not_owned'] } },
  {
    routes: [...EVENT_TYPE_WRITES, ...TEAM_EVENT_TYPE_WRITES],
    methods: ['POST', 'PATCH'],
    reasons: { 400: ['paid_event_type_unsupported', 'stripe_not_connected'] },
  },
  { routes: ['/v2/stripe/connect', '/v2/organizations/:orgId/teams/:teamId/stripe/connect'], reasons: { 400: ['invalid_return_address'], 404: ['stripe_not_configured'] } },
  {
    routes: ['/v2/stripe/save', '/v2/organizations/:orgId/teams/:teamId/stripe/save'],
    reasons: { 400: ['stripe_state_invalid', 'stripe_connect_denied', 'stripe_connect_failed'], 404: ['stripe_not_configured'], 503: ['stripe_unavailable'] },
  },
  {
    routes: ['/v2/stripe/check', '/v2/organizations/:orgId/teams/:teamId/stripe/check'],
    reasons: { 400: ['stripe_credentials_invalid', 'stripe_account_inactive'], 404: ['stripe_not_configured', 'stripe_not_connected'], 503: ['stripe_unavailable'] },
  },
  { routes: ['/v2/stripe/webhook'], reasons: { 400: ['stripe_signature_invalid'], 404: ['stripe_not_configured'] } },
  { routes: ['/v2/event-types/:eventTypeId'], reasons: { 404: ['event_type_not_found'] } },
  { routes: ['/v2/event-types/:eventTypeId'], methods: ['PATCH'], reasons: { 400: ['managed_event_type_locked'] } },
  { routes: ['/v2/event-types/:eventTypeId'], methods: ['DELETE'], reasons: { 400: ['managed_event_type_child'] } },
  {
    routes: TEAM_EVENT_TYPE_WRITES,
    methods: ['POST', 'PATCH'],
    reasons: { 400: ['duplicate_host', 'host_slug_taken', 'hosts_required'], 404: ['host_not_team_member'] },
  },
  { routes: ['/v2/slots'], reasons: { 400: ['invalid_time_range', 'unknown_property'], 404: [...BOOKING_TARGET_NOT_FOUND, 'private_link_expired'] } },
  // Before the reservation's event type: an example names the reservation first.
  { routes: ['/v2/slots/reservations/:uid'], methods: ['PATCH', 'DELETE'], reasons: { 404: ['reservation_not_found'] } },
  {
    routes: ['/v2/slots/reservations', '/v2/slots/reservations/:uid'],
    methods: ['POST', 'PATCH'],
    reasons: {
      400: ['not_variable_length', 'length_not_allowed'],
      401: ['reservation_duration_needs_auth'],
      403: ['not_event_type_member'],
      404: ['event_type_not_found'],
      422: ['slot_booked', 'slot_reserved', 'seats_full', 'slot_in_the_past', 'slot_out_of_bounds', 'booking_limit_reached', 'booker_limit_reached', 'slot_unavailable'],
    },
  },
  {
    routes: ['/v2/bookings'],
    methods: ['POST'],
    reasons: {
      400: ['not_variable_length', 'length_not_allowed', 'recurrence_count_too_high', 'instant_not_supported', 'managed_event_type_parent', ...BOOKING_SLOT_REFUSED, ...BOOKING_FIELD_REFUSED],
      401: ['booking_requires_authentication'],
      403: ['booking_requires_authentication'],
      404: [...BOOKING_TARGET_NOT_FOUND, 'private_link_expired'],
      409: ['booking_conflict', 'booking_seats_full', 'payment_not_created'],
      422: ['event_type_no_hosts'],
      503: ['stripe_unavailable'],
    },
  },
  // Requests without credentials: what they would mail to people other than the hosts is over a budget.
  { routes: ['/v2/bookings', '/v2/bookings/:bookingUid/cancel', '/v2/bookings/:bookingUid/reschedule'], methods: ['POST'], reasons: { 429: ['mail_limit_reached'] } },
  { routes: ['/v2/bookings/:bookingUid', '/v2/bookings/:bookingUid/*'], reasons: BOOKING_NOT_FOUND },
  {
    routes: ['/v2/bookings/:bookingUid/cancel'],
    reasons: {
      400: ['cancelling_disabled', 'cancellation_reason_required', 'booking_not_recurring', 'booking_already_cancelled', 'booking_ended', 'series_uid_with_cancel_subsequent', 'seat_not_found', 'seat_not_in_booking'],
      401: ['not_booking_host'],
      403: ['not_booking_host'],
    },
  },
  {
    routes: ['/v2/bookings/:bookingUid/reschedule'],
    reasons: {
      400: ['booking_already_rescheduled', 'booking_cancelled', 'booking_ended', 'rescheduling_disabled', 'reschedule_notice', 'seat_uid_required', 'seat_not_in_booking', 'booking_awaiting_payment', ...BOOKING_SLOT_REFUSED],
      404: ['seat_not_found', 'event_type_not_found'],
      409: ['booking_conflict', 'booking_seats_full'],
    },
  },
  {
    routes: ['/v2/bookings/:bookingUid/confirm', '/v2/bookings/:bookingUid/decline'],
    reasons: { 400: ['booking_not_pending', 'booking_awaiting_payment'], 403: ['not_booking_organizer'], 409: ['booking_conflict'] },
  },
  {
    routes: ['/v2/bookings/:bookingUid/reassign', '/v2/bookings/:bookingUid/reassign/:userId'],
    reasons: {
      400: ['event_type_not_found', 'booking_not_round_robin', 'booking_cancelled', 'booking_started', 'invalid_round_robin_host', 'fixed_host', 'no_available_host', 'host_unavailable'],
      403: ['not_booking_manager'],
      404: ['user_not_found', 'route_not_found'],
    },
  },
  { routes: ['/v2/bookings/:bookingUid/mark-absent'], reasons: { 400: ['booking_not_active', 'booking_not_started'], 403: ['not_booking_organizer'] } },
  {
    routes: ['/v2/bookings/:bookingUid/guests'],
    reasons: { 400: ['booking_not_active', 'seated_booking', 'guests_disabled', 'too_many_guests', 'too_many_attendees', 'no_new_guests'], 403: ['not_booking_participant'], 404: ['route_not_found'] },
  },
  { routes: ['/v2/bookings/:bookingUid/location'], reasons: { 400: ['booking_not_active', 'unsupported_location_type'], 403: ['not_booking_organizer'], 404: ['route_not_found'] } },
  { routes: ['/v2/bookings/:bookingUid/calendar-links', '/v2/bookings/:bookingUid/references'], reasons: { 403: ['not_booking_participant'] } },
  { routes: ['/v2/webhooks', '/v2/webhooks/*', '/v2/event-types/:eventTypeId/webhooks', '/v2/event-types/:eventTypeId/webhooks/*'], methods: WEBHOOK_WRITES, reasons: { 400: ['trigger_not_allowed'], 409: ['webhook_subscriber_url_taken'] } },
  { routes: ['/v2/webhooks/:webhookId', '/v2/webhooks/:webhookId/*'], reasons: { 403: ['webhook_not_owned'], 404: ['webhook_not_found'] } },
  {
    routes: ['/v2/event-types/:eventTypeId/webhooks', '/v2/event-types/:eventTypeId/webhooks/*'],
    reasons: { 400: ['webhook_not_of_event_type'], 403: ['event_type_not_owned', 'webhook_of_other_event_type'], 404: ['event_type_not_found', 'webhook_not_found'] },
  },
  { routes: TEAM_EVENT_TYPE_WEBHOOKS, methods: WEBHOOK_WRITES, reasons: { 400: ['trigger_not_allowed'], 409: ['webhook_subscriber_url_taken'] } },
  { routes: TEAM_EVENT_TYPE_WEBHOOKS, reasons: { 400: ['webhook_not_of_event_type'], 403: ['webhook_of_other_event_type'], 404: ['event_type_not_found', 'webhook_not_found'] } },
  { routes: PRIVATE_LINKS, reasons: { 404: ['event_type_not_found'] } },
  { routes: PRIVATE_LINKS, methods: ['POST', 'PATCH'], reasons: { 400: ['private_link_limit_required', 'private_link_limits_conflict'] } },
  { routes: PRIVATE_LINKS, methods: ['PATCH', 'DELETE'], reasons: { 404: ['private_link_not_found'] } },
  { routes: ['/v2/webhooks/:webhookId/deliveries', '/v2/webhooks/:webhookId/deliveries/*', '/v2/event-types/:eventTypeId/webhooks/:webhookId/deliveries', '/v2/event-types/:eventTypeId/webhooks/:webhookId/deliveries/*'], reasons: { 404: ['webhook_delivery_not_found'] } },
  { routes: ['/v2/teams', '/v2/teams/:teamId', '/v2/admin/organizations', '/v2/admin/organizations/:orgId'], methods: ['POST', 'PATCH'], reasons: { 409: ['team_slug_taken'] } },
  { routes: ['/v2/teams'], methods: ['POST'], reasons: { 400: ['team_name_taken'] } },
  { routes: ['/v1/teams'], reasons: { 400: ['user_not_found', 'parent_not_organization'], 401: ['owner_id_admin_only', 'not_organization_admin'], 409: ['team_slug_taken'] } },
  { routes: ['/v2/teams/:teamId', '/v2/teams/:teamId/*'], reasons: { 404: ['team_not_found'] } },
  { routes: ['/v2/organizations/:orgId/teams/:teamId/event-types'], methods: ['GET'], reasons: { 404: ['team_not_found'] } },
  { routes: ['/v2/teams/:teamId/memberships'], methods: ['POST'], reasons: { 400: ['user_not_found'], 409: ['membership_exists'] } },
  { routes: ['/v2/teams/:teamId/memberships/:membershipId'], reasons: { 404: ['membership_not_found'] } },
  { routes: ['/v2/teams/:teamId/memberships/:membershipId'], methods: ['PATCH', 'DELETE'], reasons: { 400: ['last_owner', 'role_not_found'] } },
  { routes: ['/v2/admin/organizations'], methods: ['POST'], reasons: { 400: ['user_not_found'] } },
  { routes: ['/v2/organizations/:orgId/teams', '/v2/organizations/:orgId/teams/:teamId'], methods: ['POST', 'PATCH'], reasons: { 409: ['team_slug_taken'] } },
  { routes: ['/v2/organizations/:orgId/teams/:teamId/memberships', '/v2/organizations/:orgId/memberships'], methods: ['POST'], reasons: { 400: ['user_not_found'], 409: ['membership_exists'] } },
  { routes: ['/v2/organizations/:orgId/teams/:teamId/memberships'], methods: ['POST'], reasons: { 422: ['user_not_in_organization'] } },
  { routes: ['/v2/organizations/:orgId/memberships'], methods: ['POST'], reasons: { 400: ['last_owner', 'regular_user_platform_organization', 'managed_user_regular_organization', 'managed_user_other_client'] } },
  { routes: ['/v2/organizations/:orgId/teams/:teamId/memberships/:membershipId', '/v2/organizations/:orgId/memberships/:membershipId'], reasons: { 404: ['membership_not_found'] } },
  {
    routes: ['/v2/organizations/:orgId/teams/:teamId/memberships/:membershipId', '/v2/organizations/:orgId/memberships/:membershipId'],
    methods: ['PATCH', 'DELETE'],
    reasons: { 400: ['last_owner', 'role_not_found'] },
  },
  { routes: [...MEMBERSHIP_ROUTES, '/v2/organizations/:orgId/users', '/v2/organizations/:orgId/users/:userId'], methods: ['POST', 'PATCH', 'DELETE'], reasons: { 403: ROLE_GRANT_REFUSED } },
  { routes: MEMBERSHIP_ROUTES, methods: ['POST', 'PATCH'], reasons: { 403: ['membership_acceptance_by_member_only'] } },
  { routes: MEMBERSHIP_ANSWERS, reasons: { 404: ['membership_not_found', 'team_not_found'] } },
  { routes: MEMBERSHIP_ANSWERS.filter((route) => route.endsWith('/decline')), reasons: { 409: ['membership_already_accepted'] } },
  { routes: ['/teams', '/teams/invitations'], reasons: { 403: ['invitation_for_another_user'], 404: ['invitation_not_found'], 409: ['membership_already_accepted'] } },
  { routes: ['/v2/organizations/:orgId/roles', '/v2/organizations/:orgId/roles/*', '/v2/organizations/:orgId/teams/:teamId/roles', '/v2/organizations/:orgId/teams/:teamId/roles/*'], methods: WRITE, reasons: { 403: ['permission_not_held'] } },
  { routes: ['/v2/admin/organizations/:orgId'], reasons: { 404: ['organization_not_found'] } },
  { routes: ['/v2/webhooks/:webhookId/deliveries/:deliveryId/resend', '/v2/event-types/:eventTypeId/webhooks/:webhookId/deliveries/:deliveryId/resend'], reasons: { 409: ['webhook_delivery_in_progress'] } },
  {
    routes: ['/v2/organizations/:orgId/roles/*', '/v2/organizations/:orgId/teams/:teamId/roles/*'],
    reasons: { 404: ['role_not_found'] },
  },
  {
    routes: ['/v2/organizations/:orgId/roles', '/v2/organizations/:orgId/roles/:roleId', '/v2/organizations/:orgId/teams/:teamId/roles', '/v2/organizations/:orgId/teams/:teamId/roles/:roleId'],
    methods: ['POST', 'PATCH'],
    reasons: { 400: ['invalid_permission', 'role_name_taken'] },
  },
  {
    routes: ['/v2/organizations/:orgId/roles/*', '/v2/organizations/:orgId/teams/:teamId/roles/*'],
    methods: WRITE,
    reasons: { 400: ['default_role_read_only'] },
  },
  {
    routes: ['/v2/organizations/:orgId/roles/:roleId/permissions', '/v2/organizations/:orgId/roles/:roleId/permissions/*', '/v2/organizations/:orgId/teams/:teamId/roles/:roleId/permissions', '/v2/organizations/:orgId/teams/:teamId/roles/:roleId/permissions/*'],
    methods: WRITE,
    reasons: { 400: ['invalid_permission'] },
  },
  {
    routes: ['/v2/organizations/:orgId/roles/:roleId/permissions', '/v2/organizations/:orgId/teams/:teamId/roles/:roleId/permissions'],
    methods: ['DELETE'],
    reasons: { 400: ['empty_permissions'] },
  },
  { routes: ['/v2/organizations/:orgId/users'], methods: ['POST'], reasons: { 409: ['email_taken', 'username_taken'] } },
  { routes: ['/v2/organizations/:orgId/users/:userId', '/v2/organizations/:orgId/users/:userId/schedules', '/v2/organizations/:orgId/users/:userId/schedules/*'], reasons: { 403: ['user_not_in_organization'] } },
  { routes: ['/v2/organizations/:orgId/users/:userId'], methods: ['PATCH', 'DELETE'], reasons: { 403: ['user_is_system_admin', 'user_not_created_by_organization'] } },
  { routes: ['/v2/organizations/:orgId/users/:userId/schedules', '/v2/organizations/:orgId/users/:userId/schedules/:scheduleId'], methods: WRITE, reasons: { 403: ['user_is_system_admin', 'user_not_created_by_organization'] } },
  { routes: ['/v2/organizations/:orgId/users/:userId'], methods: ['PATCH'], reasons: { 403: ['schedule_not_owned'], 404: ['schedule_not_found'], 409: ['email_taken', 'username_taken'] } },
  { routes: ['/v2/organizations/:orgId/users/:userId'], methods: ['DELETE'], reasons: { 400: ['last_owner'], 403: ['user_in_other_tenants'] } },
  { routes: ['/v2/organizations/:orgId/users/:userId/schedules/:scheduleId'], reasons: { 403: ['schedule_not_owned'], 404: ['schedule_not_found'] } },
  { routes: ['/v2/me/ooo', '/v2/organizations/:orgId/users/:userId/ooo'], methods: ['POST'], reasons: { 400: ['invalid_ooo_entry'], 409: ['ooo_entry_exists'] } },
  {
    routes: ['/v2/me/ooo/:oooId', '/v2/organizations/:orgId/users/:userId/ooo/:oooId'],
    methods: ['PATCH'],
    reasons: { 400: ['invalid_ooo_entry'], 403: ['ooo_entry_not_owned'], 404: ['ooo_entry_not_found'], 409: ['ooo_entry_exists'] },
  },
  { routes: ['/v2/me/ooo/:oooId', '/v2/organizations/:orgId/users/:userId/ooo/:oooId'], methods: ['DELETE'], reasons: { 403: ['ooo_entry_not_owned'], 404: ['ooo_entry_not_found'] } },
  { routes: ['/v2/organizations/:orgId/users/:userId/schedules/:scheduleId'], methods: ['DELETE'], reasons: { 400: ['schedule_not_found'] } },
  { routes: ['/v2/organizations/:orgId/teams/:teamId/users/:userId/schedules'], reasons: { 403: ['user_not_in_team'] } },
  { routes: ['/v2/organizations/:orgId/bookings'], reasons: { 400: ['users_not_found'], 403: ['users_not_in_organization'] } },
  {
    routes: ['/v2/bookings', '/v2/teams/:teamId/bookings', '/v2/organizations/:orgId/bookings', '/v2/organizations/:orgId/teams/:teamId/bookings', '/v2/organizations/:orgId/users/:userId/bookings'],
    methods: ['GET'],
    reasons: { 400: ['event_types_not_found'] },
  },
  { routes: ['/v2/organizations/:orgId/users/:userId/bookings'], reasons: { 403: ['user_not_in_organization'] } },
  { routes: ['/v2/organizations/:orgId/teams/:teamId/bookings/:bookingUid/references'], reasons: BOOKING_NOT_FOUND },
  { routes: ['/v2/organizations/:orgId/webhooks', '/v2/organizations/:orgId/webhooks/:webhookId'], methods: WEBHOOK_WRITES, reasons: { 400: ['trigger_not_allowed'], 409: ['webhook_subscriber_url_taken'] } },
  { routes: ['/v2/calendars/google/notifications'], reasons: { 404: ['push_channel_not_found'] } },
  { routes: ['/v2/conferencing/daily/webhook'], reasons: { 401: ['daily_webhook_signature_invalid'], 404: ['daily_webhook_not_configured'] } },
  {
    routes: ['/v2/bookings/:bookingUid/conferencing-sessions', '/v2/bookings/:bookingUid/recordings', '/v2/bookings/:bookingUid/transcripts'],
    reasons: { 400: ['video_provider_failed'], 403: ['not_booking_organizer'], ...BOOKING_NOT_FOUND },
  },
  { routes: ['/video/:bookingUid'], reasons: { 400: ['video_provider_failed', 'booking_not_active'], 403: ['not_booking_host'], 404: ['booking_has_no_video', 'booking_not_found'] } },
  { routes: ['/v2/organizations/:orgId/attributes/*'], reasons: { 404: ['attribute_not_found'] } },
  { routes: ['/v2/organizations/:orgId/attributes'], methods: ['POST'], reasons: { 409: ['attribute_slug_taken'] } },
  { routes: ['/v2/organizations/:orgId/attributes/:attributeId'], methods: ['PATCH'], reasons: { 409: ['attribute_slug_taken'] } },
  { routes: ['/v2/organizations/:orgId/attributes/:attributeId/options', '/v2/organizations/:orgId/attributes/:attributeId/options/:optionId'], methods: WRITE, reasons: { 404: ['attribute_option_not_found'], 409: ['attribute_option_slug_taken'] } },
  { routes: ['/v2/organizations/:orgId/attributes/:attributeId/options/assigned', '/v2/organizations/:orgId/attributes/slugs/:attributeSlug/options/assigned'], reasons: { 404: ['attribute_options_not_assigned'] } },
  { routes: ['/v2/organizations/:orgId/attributes/options/:userId'], methods: ['POST'], reasons: { 400: ['attribute_value_not_supported'], 404: ['attribute_option_not_found', 'organization_member_not_found'] } },
  { routes: ['/v2/organizations/:orgId/attributes/options/:userId/:attributeOptionId'], reasons: { 404: ['attribute_assignment_not_found'] } },
  {
    routes: ['/v2/organizations/:orgId/teams/:teamId/routing-forms/*', '/v2/organizations/:orgId/routing-forms/*', '/v2/routing-forms/*'],
    reasons: { 400: ['routing_form_disabled', 'routing_form_without_fallback'], 404: ['routing_form_not_found', 'routing_form_response_not_found'] },
  },
  { routes: ['/v2/bookings'], methods: ['POST'], reasons: { 404: ['routing_form_response_not_found'], 409: ['routing_form_response_booked'] } },
  { routes: ['/v2/organizations/:orgId/teams/:teamId/workflows/*'], reasons: { 404: ['workflow_not_found'] } },
  { routes: ['/v2/organizations/:orgId/teams/:teamId/workflows', '/v2/organizations/:orgId/teams/:teamId/workflows/*'], methods: ['POST', 'PATCH'], reasons: { 400: ['text_provider_not_configured'] } },
  { routes: ['/v2/text-messages/twilio/status'], reasons: { 401: ['twilio_signature_invalid'], 404: ['twilio_not_configured'] } },
  { routes: ['/v2/organizations/:orgId/delegation-credentials'], reasons: { 409: ['delegation_credential_exists'] } },
  { routes: ['/v2/organizations/:orgId/delegation-credentials/:credentialId'], reasons: { 400: ['delegation_credential_not_working'], 404: ['delegation_credential_not_found'] } },
  { routes: ['/v2/organizations/:orgId/webhooks/:webhookId'], reasons: { 403: ['webhook_not_in_organization'], 404: ['webhook_not_found'] } },
  { routes: ['/v2/organizations/:orgId/organizations'], methods: ['POST'], reasons: { 400: ['api_key_validity_conflict'], 403: ['manager_not_platform'], 409: ['managed_organization_slug_taken'] } },
  { routes: ['/v2/organizations/:orgId/organizations'], methods: ['GET'], reasons: { 400: ['metadata_filter_incomplete'] } },
  { routes: ['/v2/organizations/:orgId/organizations/:managedOrganizationId'], reasons: { 403: ['managed_organization_not_in_manager'], 404: ['team_not_found'] } },
  { routes: ['/v2/oauth-clients'], reasons: { 400: ['not_platform_organization'], 403: ['not_platform_organization_admin'] } },
  { routes: ['/v2/oauth-clients/:clientId', '/v2/oauth-clients/:clientId/*', '/v2/oauth/:clientId/*'], reasons: { 403: ['oauth_client_not_in_organization'], 404: ['oauth_client_not_found'] } },
  { routes: ['/v2/oauth-clients/:clientId'], methods: ['PATCH'], reasons: { 400: ['permissions_not_updatable'] } },
  { routes: ['/v2/oauth-clients/:clientId/users'], methods: ['GET'], reasons: { 400: ['invalid_email'] } },
  { routes: ['/v2/oauth-clients/:clientId/users', '/v2/oauth-clients/:clientId/users/:userId'], methods: ['POST', 'PATCH'], reasons: { 409: ['managed_user_email_taken'] } },
  { routes: ['/v2/oauth-clients/:clientId/users/:userId', '/v2/oauth-clients/:clientId/users/:userId/*'], reasons: { 404: ['managed_user_not_found'] } },
  { routes: ['/v2/oauth-clients/:clientId/users/:userId'], methods: ['PATCH'], reasons: { 403: ['schedule_not_owned'], 404: ['schedule_not_found'] } },
  { routes: ['/v2/oauth-clients/:clientId/webhooks', '/v2/oauth-clients/:clientId/webhooks/:webhookId'], methods: WEBHOOK_WRITES, reasons: { 400: ['trigger_not_allowed'], 409: ['webhook_subscriber_url_taken'] } },
  { routes: ['/v2/oauth-clients/:clientId/webhooks/:webhookId'], reasons: { 403: ['webhook_not_of_oauth_client'], 404: ['webhook_not_found'] } },
  { routes: ['/v2/oauth/:clientId/refresh'], reasons: { 400: ['invalid_refresh_token', 'refresh_token_expired', 'refresh_token_reused'] } },
  // Verified resources (verified-resources.routes.ts): a user's own, a team's and an organization team's.
  ...['/v2/verified-resources', '/v2/teams/:teamId/verified-resources', '/v2/organizations/:orgId/teams/:teamId/verified-resources'].flatMap((base): ReasonGroup[] => [
    { routes: [`${base}/emails/verification-code/request`], reasons: { 409: ['email_already_verified'], 429: ['too_many_verification_requests'] } },
    { routes: [`${base}/phones/verification-code/request`], reasons: { 400: ['text_provider_not_configured'], 409: ['phone_already_verified'], 429: ['too_many_verification_requests'] } },
    { routes: [`${base}/emails/verification-code/verify`], reasons: { 400: ['invalid_email_verification_code'], 429: ['too_many_wrong_codes'] } },
    { routes: [`${base}/phones/verification-code/verify`], reasons: { 400: ['invalid_phone_verification_code'], 429: ['too_many_wrong_codes'] } },
    { routes: [`${base}/emails/:id`], reasons: { 404: ['verified_email_not_found'] } },
    { routes: [`${base}/phones/:id`], reasons: { 404: ['verified_phone_not_found'] } },
  ]),
];

const matchesPattern = (pattern: string, url: string) => (pattern.endsWith('/*') ? url.startsWith(pattern.slice(0, -1)) : pattern === url);

/** The reasons REASON_GROUPS lists for one route, by status. */
export function groupReasons(route: { method: string; url: string }): Map<number, string[]> {
  const byStatus = new Map<number, string[]>();
  for (const group of REASON_GROUPS) {
    if (!group.routes.some((pattern) => matchesPattern(pattern, route.url))) continue;
    if (group.methods && !group.methods.includes(route.method)) continue;
    for (const [status, reasons] of Object.entries(group.reasons)) {
      const list = byStatus.get(Number(status)) ?? [];
      list.push(...reasons!);
      byStatus.set(Number(status), list);
    }
  }
  return byStatus;
}
