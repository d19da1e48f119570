import type { CredentialKind } from '../../http/access.js';
import type { UserRecord } from '../users/users.repository.js';

/** The platform OAuth client behind a credential: its own credentials, or a managed user's token. */
export interface PlatformClientRef {
  id: string;
  organizationId: number;
  /** Where an access token's requests may come from (`Origin`), as the client's redirect URIs. */
  redirectUris: readonly string[];
}

/** The authenticated caller of a request. */
export interface Principal {
  kind: CredentialKind;
  user: UserRecord;
  /** Scopes of an OAuth access token or platform client; null for credentials with the user's full rights (API keys). */
  scopes: ReadonlySet<string> | null;
  /** SHA-256 of the credential (of the client id for platform credentials): the key of the cache and of the rate limiter. */
  credentialHash: string;
  client: PlatformClientRef | null;
}
