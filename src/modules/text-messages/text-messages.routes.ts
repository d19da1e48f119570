import { Type } from 'typebox';
import { TWILIO_STATUS_PATH } from '../../app/twilio-config.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { verifyTwilioSignature } from '../../integrations/twilio/client.js';
import { notFound, unauthorized } from '../../lib/errors.js';
import { recordDeliveryStatus } from './text-messages.repository.js';

/**
 * Twilio's delivery reports (svc's own route, given to Twilio as each message's StatusCallback): public,
 * trusted only through X-Twilio-Signature over the callback URL svc gave and the posted parameters.
 */
export function registerTextMessageRoutes(app: App, ctx: AppContext): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    scope.post(TWILIO_STATUS_PATH, {
      // Twilio posts from addresses all its customers share; an unsigned request costs one HMAC.
      config: { access: access.public(), rateLimit: false as const },
      schema: {
        tags: ['Workflows'],
        summary: 'Twilio delivery reports (svc)',
        description:
          "Twilio posts each text message's status changes here (the StatusCallback svc sends with every message; TWILIO_STATUS_CALLBACK_URL overrides the address). Signed as Twilio signs webhooks (X-Twilio-Signature: base64 HMAC-SHA1 with the auth token of the URL and the sorted parameters); 401 when the signature does not verify, 404 when Twilio is not configured.",
        response: { 200: Envelope(Type.Object({ received: Type.Boolean() })) },
      },
      handler: async (request) => {
        const twilio = ctx.config.twilio;
        if (!twilio) throw notFound('twilio_not_configured', 'Not Found');
        const params = (request.body ?? {}) as Record<string, string>;
        const signature = String(request.headers['x-twilio-signature'] ?? '').slice(0, 256);
        if (!verifyTwilioSignature(twilio.authToken, twilio.statusCallbackUrl!, params, signature)) {
          throw unauthorized('twilio_signature_invalid', 'The X-Twilio-Signature does not match this request');
        }
        const sid = params.MessageSid;
        const status = params.MessageStatus;
        if (typeof sid !== 'string' || typeof status !== 'string') return ok({ received: false });
        const error = params.ErrorCode ? `Twilio error ${params.ErrorCode}` : null;
        return ok({ received: await recordDeliveryStatus(ctx.database.db, sid.slice(0, 64), status.slice(0, 32), error) });
      },
    });
  });
}
