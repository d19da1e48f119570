import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import { ok } from '../../http/envelope.js';
import { principalOf } from '../../http/request-guard.js';
import { RefreshApiKeyBody, RefreshApiKeyResponse } from './api-keys.schemas.js';
import { refreshApiKey } from './api-keys.service.js';

export function registerApiKeyRoutes(app: App, ctx: AppContext): void {
  app.post('/v2/api-keys/refresh', {
    config: { access: access.apiKeyOnly() },
    schema: {
      tags: ['Api Keys'],
      summary: 'Refresh API Key',
      description: 'Replaces the API key sent as Bearer with a new one. The old key stops working immediately.',
      body: RefreshApiKeyBody,
      response: { 200: RefreshApiKeyResponse },
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const body = request.body ?? {};
      const apiKey = await refreshApiKey(ctx, { userId: principal.user.id, hashedKey: principal.credentialHash }, {
        daysValid: body.apiKeyDaysValid,
        neverExpires: body.apiKeyNeverExpires,
      });
      return reply.status(200).send(ok({ apiKey }));
    },
  });
}
