// The fixture of the managed-user benchmark: a platform organization, an OAuth client of it, and a
// managed user created by the client with its first access token.

export const PLATFORM_TARGET_RATIO = 0.5;
export const PLATFORM_NOTE = `managedUserMe: GET /v2/me with a managed user's access token (an opaque token resolved by its SHA-256 through the credential cache, its client's permissions checked: PROFILE_READ); ratio is its req/s over GET /health's in the same run (target >= ${PLATFORM_TARGET_RATIO}).`;

type PostJson = (url: string, headers: Record<string, string>, body: unknown, what: string) => Promise<any>;

/** Makes the organization, its client and a managed user; returns the URL to load and the token's headers. */
export async function platformFixture(baseUrl: string, adminHeaders: Record<string, string>, postJson: PostJson, label: string) {
  const owner = await postJson(`${baseUrl}/v2/admin/users`, adminHeaders, { email: 'platform-owner@example.com', name: 'Platform Owner' }, `${label}: POST /v2/admin/users (platform owner)`);
  await postJson(`${baseUrl}/v2/admin/organizations`, adminHeaders, { name: 'Bench Platform', ownerId: owner.user.id, isPlatform: true }, `${label}: POST /v2/admin/organizations (platform)`);
  const client = await postJson(
    `${baseUrl}/v2/oauth-clients`,
    { authorization: `Bearer ${owner.apiKey}` },
    { name: 'Bench client', redirectUris: ['https://bench.example.test'], permissions: ['*'] },
    `${label}: POST /v2/oauth-clients`,
  );
  const managed = await postJson(
    `${baseUrl}/v2/oauth-clients/${client.clientId}/users`,
    { 'x-svc-secret-key': client.clientSecret },
    { email: 'managed@example.com', name: 'Managed', timeZone: 'Europe/Rome' },
    `${label}: POST /v2/oauth-clients/{clientId}/users`,
  );
  return { url: `${baseUrl}/v2/me`, headers: { authorization: `Bearer ${managed.accessToken}` } };
}
