import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import { pickVariant } from '../../http/api-version.js';
import { Envelope, ok } from '../../http/envelope.js';
import { principalOf } from '../../http/request-guard.js';
import { MeOutput, UpdateMeBody } from '../users/users.schemas.js';
import { mainOrganizationOf } from '../organizations/organizations.service.js';
import { updateMyProfile } from './me.service.js';
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
}
