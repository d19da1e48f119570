// The organization fixture of the access-layer benchmark: an organization whose admin (not its owner)
// lists the memberships of one of its teams, so every request goes through the organization and team
// access check (memberships of the caller in both, read in one statement) and the membership list.

export const TENANCY_TEAM_MEMBERS = 20;
export const TENANCY_TARGET_RATIO = 0.45;
export const TENANCY_NOTE = `orgTeamMemberships: GET /v2/organizations/{orgId}/teams/{teamId}/memberships with the API key of an organization ADMIN who is not in the team (RolesGuard: organization admins act on every team of it; IsTeamInOrg), on a team of ${TENANCY_TEAM_MEMBERS} members; ratio is its req/s over GET /health's in the same run (target >= ${TENANCY_TARGET_RATIO}).`;

type PostJson = (url: string, headers: Record<string, string>, body: unknown, what: string) => Promise<any>;

/** Makes the organization, its admin and a team of members; returns the URL to load and the admin's headers. */
export async function tenancyFixture(baseUrl: string, adminHeaders: Record<string, string>, postJson: PostJson, label: string) {
  const user = (email: string) => postJson(`${baseUrl}/v2/admin/users`, adminHeaders, { email, name: email.split('@')[0] }, `${label}: POST /v2/admin/users`);
  const owner = await user('org-owner@example.com');
  const organization = await postJson(`${baseUrl}/v2/admin/organizations`, adminHeaders, { name: 'Bench Org', ownerId: owner.user.id }, `${label}: POST /v2/admin/organizations`);
  const ownerAuth = { authorization: `Bearer ${owner.apiKey}` };
  const orgAdmin = await user('org-admin@example.com');
  // Organization members are added by the system admin, so they join at once (the owner's additions wait for each to accept).
  await postJson(`${baseUrl}/v2/organizations/${organization.id}/memberships`, adminHeaders, { userId: orgAdmin.user.id, role: 'ADMIN', accepted: true }, `${label}: org admin membership`);
  const team = await postJson(`${baseUrl}/v2/organizations/${organization.id}/teams`, ownerAuth, { name: 'Bench Team' }, `${label}: POST org team`);
  for (let i = 1; i < TENANCY_TEAM_MEMBERS; i++) {
    const member = await user(`team-member-${i}@example.com`);
    await postJson(`${baseUrl}/v2/organizations/${organization.id}/memberships`, adminHeaders, { userId: member.user.id, accepted: true }, `${label}: org membership`);
    await postJson(`${baseUrl}/v2/organizations/${organization.id}/teams/${team.id}/memberships`, ownerAuth, { userId: member.user.id, accepted: true }, `${label}: team membership`);
  }
  return { url: `${baseUrl}/v2/organizations/${organization.id}/teams/${team.id}/memberships`, headers: { authorization: `Bearer ${orgAdmin.apiKey}` } };
}
