import type { Static } from 'typebox';
import type { OAuthClientOutput } from './oauth-clients.schemas.js';
import type { OAuthClientView } from './oauth-clients.service.js';

/** The reference's PlatformOAuthClientDto: the booking redirect URIs are left out when unset. */
export function presentOAuthClient({ client, secret }: OAuthClientView): Static<typeof OAuthClientOutput> {
  return {
    id: client.id,
    name: client.name,
    secret,
    permissions: client.permissions,
    logo: client.logo,
    redirectUris: client.redirectUris,
    organizationId: client.organizationId,
    createdAt: client.createdAt.toISOString(),
    areEmailsEnabled: client.areEmailsEnabled,
    areDefaultEventTypesEnabled: client.areDefaultEventTypesEnabled,
    areCalendarEventsEnabled: client.areCalendarEventsEnabled,
    ...(client.bookingRedirectUri !== null ? { bookingRedirectUri: client.bookingRedirectUri } : {}),
    ...(client.bookingCancelRedirectUri !== null ? { bookingCancelRedirectUri: client.bookingCancelRedirectUri } : {}),
    ...(client.bookingRescheduleRedirectUri !== null ? { bookingRescheduleRedirectUri: client.bookingRescheduleRedirectUri } : {}),
  };
}
