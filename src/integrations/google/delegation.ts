// Domain-wide delegation: a Google Workspace service account acting for a user of its domain. The
// account signs a JWT naming the user (`sub`) and trades it at the token endpoint (RFC 7523, as
// Google's "OAuth 2.0 for server to server applications" describes): no consent page, no refresh
// token; when the access token runs out, a new JWT is signed.
import { createPrivateKey, sign } from 'node:crypto';
import { CalendarProviderError, type OAuthTokens } from '../calendar-types.js';
import { GOOGLE_SCOPES, postTokenForm, tokensOf } from './oauth.js';

/** The fields of a service account's JSON key svc uses. */
export interface GoogleServiceAccountKey {
  client_email: string;
  client_id: string;
  private_key: string;
}

const ASSERTION_LIFETIME_S = 3600;
const base64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Whether `pem` is a private key Node can sign with (the key's `private_key`); the parse error otherwise. */
export function privateKeyProblem(pem: string): string | null {
  try {
    const key = createPrivateKey(pem);
    return key.asymmetricKeyType === 'rsa' ? null : `an ${key.asymmetricKeyType} key: Google service accounts sign with RSA`;
  } catch {
    return 'not a PEM private key';
  }
}

/** The signed assertion for `subject` (RS256, as Google requires). */
export function serviceAccountAssertion(key: GoogleServiceAccountKey, subject: string, tokenUrl: string, now: number): string {
  const issuedAt = Math.floor(now / 1000);
  const header = base64url({ alg: 'RS256', typ: 'JWT' });
  const claims = base64url({ iss: key.client_email, sub: subject, scope: GOOGLE_SCOPES.join(' '), aud: tokenUrl, iat: issuedAt, exp: issuedAt + ASSERTION_LIFETIME_S });
  const signature = sign('RSA-SHA256', Buffer.from(`${header}.${claims}`), createPrivateKey(key.private_key)).toString('base64url');
  return `${header}.${claims}.${signature}`;
}

/** An access token acting as `subject`. A workspace that has not authorized the account answers unauthorized_client: `unauthorized`. */
export async function serviceAccountTokens(key: GoogleServiceAccountKey, subject: string, tokenUrl: string, fetchImpl: typeof fetch, now: number): Promise<OAuthTokens> {
  const what = `granting a token for ${subject} to the service account`;
  let assertion: string;
  try {
    assertion = serviceAccountAssertion(key, subject, tokenUrl, now);
  } catch {
    throw new CalendarProviderError('unauthorized', `${what}: its private key cannot sign`);
  }
  const answer = await postTokenForm(tokenUrl, fetchImpl, what, { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }, [assertion, key.private_key]);
  return tokensOf(answer, '', now, what);
}
