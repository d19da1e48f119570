import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { PLATFORM_PERMISSIONS } from '../../http/scopes.js';

/** At most 10 redirect URIs (spec 8). An entry may hold `*` wildcards, matched against a request's `Origin`. */
export const MAX_REDIRECT_URIS = 10;

export const ClientIdParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 64, description: 'The OAuth client id' }) });

export const OrganizationChoiceQuery = Type.Object({
  organizationId: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      description: 'svc extension: the platform organization to create the client in, needed only when the caller administers several (and for the system admin)',
    }),
  ),
});

/** Where the client's booker sends people afterwards: the reference takes any string (a path, an app scheme); svc only stores it. */
const BookingRedirect = Type.String({ maxLength: 2048 });
const RedirectUris = Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
  maxItems: MAX_REDIRECT_URIS,
  description: `Up to ${MAX_REDIRECT_URIS}. An access token sent with an \`Origin\` header must come from one of them (\`*\` matches anything).`,
});

const clientSettings = {
  logo: Type.Optional(Type.String({ maxLength: 2048 })),
  bookingRedirectUri: Type.Optional(BookingRedirect),
  bookingCancelRedirectUri: Type.Optional(BookingRedirect),
  bookingRescheduleRedirectUri: Type.Optional(BookingRedirect),
  areEmailsEnabled: Type.Optional(Type.Boolean({ default: false })),
  areDefaultEventTypesEnabled: Type.Optional(
    Type.Boolean({ default: false, description: 'Each managed user created afterwards gets 4 event types: 30 and 60 minutes, each with and without svc video' }),
  ),
  areCalendarEventsEnabled: Type.Optional(Type.Boolean({ default: true })),
};

/** The reference's CreateOAuthClientInput. */
export const CreateOAuthClientBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  redirectUris: RedirectUris,
  permissions: Type.Array(StringEnum([...PLATFORM_PERMISSIONS, '*'] as const), {
    minItems: 1,
    maxItems: 20,
    description: 'At least one; `*` means all. Fixed once the client exists.',
  }),
  ...clientSettings,
});

/** The reference's UpdateOAuthClientInput: everything but the permissions. */
export const UpdateOAuthClientBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  redirectUris: Type.Optional(RedirectUris),
  ...clientSettings,
  permissions: Type.Optional(Type.Unknown({ description: 'Refused: permissions are fixed when the client is created' })),
});

export const CreatedOAuthClientOutput = Type.Object({
  clientId: Type.String(),
  clientSecret: Type.String({ description: 'The client secret (also shown on the client object)' }),
});

/** PlatformOAuthClientDto (spec 2.3). */
export const OAuthClientOutput = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    secret: Type.String(),
    permissions: Type.Array(Type.String()),
    logo: Type.Union([Type.String(), Type.Null()]),
    redirectUris: Type.Array(Type.String()),
    organizationId: Type.Integer(),
    createdAt: Type.String({ format: 'date-time' }),
    areEmailsEnabled: Type.Boolean(),
    areDefaultEventTypesEnabled: Type.Boolean(),
    areCalendarEventsEnabled: Type.Boolean(),
    bookingRedirectUri: Type.Optional(Type.String()),
    bookingCancelRedirectUri: Type.Optional(Type.String()),
    bookingRescheduleRedirectUri: Type.Optional(Type.String()),
  },
  { $id: 'OAuthClientOutput' },
);
