import type { Static } from 'typebox';
import type { OAuth2ClientOutput, OAuth2ClientReferenceOutput, RegisteredOAuth2ClientOutput } from './oauth.schemas.js';
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

/** The reference's view of a client (`OAuth2ClientDto`): no status, scopes or owner, and never the secret. */
export function presentOAuth2ClientForReference(client: OAuthClientRecord): Static<typeof OAuth2ClientReferenceOutput> {
  return {
    client_id: client.id,
    redirect_uris: client.redirectUris,
    redirect_uri: client.redirectUris[0]!,
    name: client.name,
    logo: client.logo,
    is_trusted: false,
    client_type: client.clientType === 'public' ? 'PUBLIC' : 'CONFIDENTIAL',
  };
}
