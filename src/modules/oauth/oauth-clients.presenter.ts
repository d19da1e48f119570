import type { Static } from 'typebox';
import type { OAuth2ClientOutput, RegisteredOAuth2ClientOutput } from './oauth.schemas.js';
import type { RegisteredClient } from './oauth-clients.service.js';
import type { OAuthClientRecord } from './oauth.repository.js';

/** A third-party client; its secret is never shown again after registration. */
export function presentOAuth2Client(client: OAuthClientRecord): Static<typeof OAuth2ClientOutput> {
  return {
    id: client.id,
    name: client.name,
    logo: client.logo,
    clientType: client.clientType,
    redirectUris: client.redirectUris,
    scopes: client.scopes,
    status: client.status,
    ownerId: client.ownerId,
    createdAt: client.createdAt.toISOString(),
    reviewedAt: client.reviewedAt?.toISOString() ?? null,
  };
}

export function presentRegisteredClient({ client, secret }: RegisteredClient): Static<typeof RegisteredOAuth2ClientOutput> {
  return { ...presentOAuth2Client(client), secret };
}
