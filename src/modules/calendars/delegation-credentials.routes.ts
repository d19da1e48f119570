import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { principalOf } from '../../http/request-guard.js';
import { OrgIdParams } from '../organizations/organizations.schemas.js';
import { CreateDelegationCredentialBody, DelegationCredentialOutput, DelegationCredentialParams, UpdateDelegationCredentialBody } from './delegation-credentials.schemas.js';
import { createDelegationCredential, updateDelegationCredential } from './delegation-credentials.service.js';

/**
 * `/v2/organizations/:orgId/delegation-credentials` (the reference's
 * OrganizationsDelegationCredentialController): organization admins (or holders of
 * `organization.update`). The reference names no OAuth scope for them; svc asks ORG_PROFILE_WRITE.
 */
export function registerDelegationCredentialRoutes(app: App, ctx: AppContext): void {
  const tags = ['Orgs / Delegation Credentials'];
  const write = access.tenant('ORG_PROFILE_WRITE', { role: 'ORG_ADMIN', permissions: ['organization.update'] });

  app.post('/v2/organizations/:orgId/delegation-credentials', {
    config: { access: write },
    schema: {
      tags,
      summary: 'Save delegation credentials for your organization',
      description:
        'A Google Workspace service account with domain-wide delegation (its JSON key: client_email, client_id, private_key), or a Microsoft 365 app with the Calendars.ReadWrite application permission (tenant_id, client_id, and its client secret as private_key), for the members whose address is in `domain`. Saved disabled: enabling it (PATCH) connects those members\' calendars. The key is stored sealed and never returned.',
      params: OrgIdParams,
      body: CreateDelegationCredentialBody,
      response: { 201: Envelope(DelegationCredentialOutput) },
    },
    handler: async (request, reply) => reply.status(201).send(ok(await createDelegationCredential(ctx, request.params.orgId, request.body))),
  });

  app.patch('/v2/organizations/:orgId/delegation-credentials/:credentialId', {
    config: { access: write },
    schema: {
      tags,
      summary: 'Update delegation credentials of your organization',
      description:
        'enabled: true first reads the calendars of a member of the domain with the key (you, when you are one); a key the workspace refuses answers 400 and changes nothing. Each accepted member of the domain then gets a connection (GET /v2/calendars shows it with this delegationCredentialId) with their primary calendar selected. enabled: false removes those connections. A new serviceAccountKey replaces the key everywhere.',
      params: DelegationCredentialParams,
      body: UpdateDelegationCredentialBody,
      response: { 200: Envelope(DelegationCredentialOutput) },
    },
    handler: async (request) => ok(await updateDelegationCredential(ctx, request.params.orgId, principalOf(request).user.id, request.params.credentialId, request.body)),
  });
}
