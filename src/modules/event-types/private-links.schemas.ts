import { Type } from 'typebox';

const INT4_MAX = 2147483647;
const Id = Type.Integer({ minimum: 1, maximum: INT4_MAX });
const LinkId = Type.String({ minLength: 1, maxLength: 100, description: 'The linkId a create answered' });

const ExpiresAt = Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
  description: 'Time-based link: ISO 8601 instant after which the link no longer books (e.g. 2030-12-31T23:59:59Z)',
});
const MaxUsageCount = Type.Union([Type.Integer({ minimum: 1, maximum: INT4_MAX }), Type.Null()], {
  description: 'Usage-based link: how many bookings it may make',
});

/** Exactly one of the two on create; on update, the one sent decides the link's kind (neither: no change). */
export const PrivateLinkBody = Type.Object({ expiresAt: Type.Optional(ExpiresAt), maxUsageCount: Type.Optional(MaxUsageCount) });

const BaseOutput = {
  linkId: Type.String({ description: 'The link itself: a secret that books the event type, hidden or not' }),
  eventTypeId: Type.Integer(),
  isExpired: Type.Boolean(),
  bookingUrl: Type.String({ description: '<APP_URL>/d/<linkId>/<event type slug>' }),
};

const TimeBasedPrivateLinkOutput = Type.Object({ ...BaseOutput, expiresAt: Type.String({ format: 'date-time' }) }, { title: 'TimeBasedPrivateLinkOutput' });
const UsageBasedPrivateLinkOutput = Type.Object({ ...BaseOutput, maxUsageCount: Type.Integer(), usageCount: Type.Integer() }, { title: 'UsageBasedPrivateLinkOutput' });

export const PrivateLinkOutput = Type.Union([TimeBasedPrivateLinkOutput, UsageBasedPrivateLinkOutput]);
export const DeletedPrivateLinkOutput = Type.Object({ linkId: Type.String(), message: Type.String() });

export const PrivateLinksParams = Type.Object({ eventTypeId: Id });
export const PrivateLinkParams = Type.Object({ eventTypeId: Id, linkId: LinkId });
export const OrgTeamPrivateLinksParams = Type.Object({ orgId: Id, teamId: Id, eventTypeId: Id });
export const OrgTeamPrivateLinkParams = Type.Object({ orgId: Id, teamId: Id, eventTypeId: Id, linkId: LinkId });
