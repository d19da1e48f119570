import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import { sendError } from '../../app/error-handler.js';
import { appliedMigrationCount, expectedMigrationCount } from '../../db/migrate.js';
import { access } from '../../http/access.js';
import { Envelope, ok } from '../../http/envelope.js';

const operational = { access: access.public(), rateLimit: false };

export function registerSystemRoutes(app: App, ctx: AppContext): void {
  const tags = ['Operations'];
  const expectedMigrations = expectedMigrationCount();

  app.get('/health', {
    config: operational,
    schema: { tags, summary: 'Liveness: the process is up', response: { 200: Envelope(Type.Object({ status: Type.Literal('ok') })) } },
    handler: async () => ok({ status: 'ok' as const }),
  });

  app.get('/ready', {
    config: operational,
    schema: {
      tags,
      summary: 'Readiness: database reachable and migrations current',
      response: {
        200: Envelope(Type.Object({ database: Type.String(), migrations: Type.Object({ applied: Type.Integer(), expected: Type.Integer() }) })),
      },
    },
    handler: async (request, reply) => {
      if (ctx.lifecycle.draining) return sendError(reply, 503, 'ServiceUnavailableException', 'Shutting down', { reason: 'draining' });
      let applied: number;
      try {
        applied = await appliedMigrationCount(ctx.database.db);
      } catch (error) {
        request.log.warn({ err: error }, 'readiness: database unreachable');
        return sendError(reply, 503, 'ServiceUnavailableException', 'Database unreachable', { reason: 'database_unreachable' });
      }
      if (applied !== expectedMigrations) {
        return sendError(reply, 503, 'ServiceUnavailableException', `Migrations not current: ${applied} of ${expectedMigrations} applied`, {
          reason: 'migrations_pending',
        });
      }
      return ok({ database: ctx.database.kind, migrations: { applied, expected: expectedMigrations } });
    },
  });

  app.get('/metrics', {
    config: operational,
    schema: { tags, summary: 'Prometheus metrics: request counts and latency histograms by route and status', produces: ['text/plain'] },
    handler: async (_request, reply) => {
      reply.type(ctx.metrics.registry.contentType);
      return ctx.metrics.registry.metrics();
    },
  });

  app.get('/docs/openapi.json', {
    config: operational,
    schema: { hide: true },
    handler: async () => app.swagger(),
  });
}
