import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import { pickVariant } from '../../http/api-version.js';
import { Envelope, ok } from '../../http/envelope.js';
import { principalOf } from '../../http/request-guard.js';
import { MeOutput, SetPasswordBody, UpdateMeBody } from '../users/users.schemas.js';
import { mainOrganizationOf } from '../organizations/organizations.service.js';
import { setMyPassword, updateMyProfile } from './me.service.js';
import { meVersions } from './me.versions.js';

export function registerMeRoutes(app: App, ctx: AppContext): void {
  app.get('/v2/me', {
    config: { access: access.user('PROFILE_READ') },
    schema: { tags: ['Me'], summary: 'Get my profile', description: "`organizationId` and `organization` name the organization of the caller's main profile: the one that made the account, else the first they joined (an invitation not yet accepted gives none).", response: { 200: Envelope(MeOutput) } },
    handler: async (request) => {
      const { present } = pickVariant(meVersions, request.apiVersion)!;
      const { user } = principalOf(request);
      return ok(present(user, await mainOrganizationOf(ctx.database.db, user.id)));
    },
  });

  app.patch('/v2/me', {
    config: { access: access.user('PROFILE_WRITE') },
    schema: { tags: ['Me'], summary: 'Update my profile', body: UpdateMeBody, response: { 200: Envelope(MeOutput) } },
    handler: async (request) => {
      const { present } = pickVariant(meVersions, request.apiVersion)!;
      const user = await updateMyProfile(ctx, principalOf(request).user.id, request.body);
      return ok(present(user));
    },
  });

  app.put('/v2/me/password', {
    // With one's own API key only: no OAuth app or platform token may set a user's password.
    config: { access: access.apiKeyOnly() },
    schema: {
      tags: ['Me'],
      summary: 'Set my web password (svc)',
      description:
        "svc addition: sets the password the caller logs in with on svc's pages (login, OAuth consent, the system admin's review of OAuth clients), and ends the caller's other web sessions. The first system admin, created with an API key only, sets one here. API key only.",
      body: SetPasswordBody,
      response: { 200: Type.Object({ status: Type.Literal('success') }) },
    },
    handler: async (request) => {
      await setMyPassword(ctx, principalOf(request).user.id, request.body.password);
      return { status: 'success' as const };
    },
  });
}
