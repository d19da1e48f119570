import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import type { App } from '../../http/app.js';
import { access } from '../../http/access.js';
import { Envelope, ok } from '../../http/envelope.js';
import { receiveDailyEvent } from './daily-events.service.js';

/**
 * POST /v2/conferencing/daily/webhook (svc's own): where the Daily webhook of svc's domain posts. Public
 * (Daily calls it), trusted only through the HMAC signature, which covers the body byte for byte: the
 * body is kept as text here, parsed only after the check.
 */
export function registerDailyWebhookRoutes(app: App, ctx: AppContext): void {
  void app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.post('/v2/conferencing/daily/webhook', {
      // Not limited per address: Daily posts from addresses all its customers share; an unsigned request costs one HMAC.
      config: { access: access.public(), rateLimit: false as const },
      schema: {
        tags: ['Conferencing'],
        summary: 'Daily webhook events (svc)',
        description:
          "Daily's webhook of svc's domain posts here, signed with SVC_DAILY_WEBHOOK_SECRET (X-Webhook-Signature: base64 HMAC-SHA256 of `{X-Webhook-Timestamp}.{body}`; at most 5 minutes old). A recording or transcript ready in a booking's room becomes the booking's RECORDING_READY or RECORDING_TRANSCRIPTION_GENERATED webhook, with Daily's download link. 401 for a request svc cannot verify; 404 when SVC_DAILY_WEBHOOK_SECRET is not set.",
        response: { 200: Envelope(Type.Object({ received: Type.Boolean() })) },
      },
      handler: async (request) => {
        const header = (name: string) => String(request.headers[name] ?? '').slice(0, 512);
        const raw = typeof request.body === 'string' ? request.body : '';
        await receiveDailyEvent(ctx, raw, { signature: header('x-webhook-signature'), timestamp: header('x-webhook-timestamp') }, Date.now());
        return ok({ received: true });
      },
    });
  });
}
