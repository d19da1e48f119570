import type { CredentialKind } from '../../http/access.js';
import type { UserRecord } from '../users/users.repository.js';

/** The authenticated caller of a request. */
export interface Principal {
  kind: CredentialKind;
  user: UserRecord;
  /** Scopes of an OAuth access token; null for credentials with the user's full rights (API keys). */
  scopes: ReadonlySet<string> | null;
  /** SHA-256 of the credential, the key of the cache and of the rate limiter. */
  credentialHash: string;
  clientId: string | null;
}
