import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { notFound } from '../../lib/errors.js';
import { receivePushNotification } from './calendar-push.js';

const Received = Envelope(Type.Object({ received: Type.Integer({ description: 'Notifications that named a live channel with its token.' }) }));

const GraphNotifications = Type.Object(
  {
    value: Type.Array(
      Type.Object(
        {
          subscriptionId: Type.String({ maxLength: 200 }),
          clientState: Type.Optional(Type.String({ maxLength: 200 })),
          lifecycleEvent: Type.Optional(Type.String({ maxLength: 100, description: 'Set on lifecycle notifications: subscriptionRemoved, reauthorizationRequired or missed.' })),
        },
        { additionalProperties: true },
      ),
      { maxItems: 100 },
    ),
  },
  { additionalProperties: true },
);

/**
 * Where Google and Microsoft send change notifications of the calendars svc watches (svc additions: the
 * reference polls). Public, as providers call them; a notification only makes svc read the calendar its
 * channel names, and only with the channel's token.
 */
export function registerCalendarPushRoutes(app: App, ctx: AppContext): void {
  // Not limited per address: Google and Microsoft post from addresses all their customers share, so a busy
  // svc would turn notifications away. Each costs one indexed lookup; only a live channel's token makes svc
  // read a calendar, at most once per calendar every 5 seconds.
  const providerCallback = { access: access.public(), rateLimit: false as const };
  const tags = ['Calendars'];

  app.post('/v2/calendars/google/notifications', {
    config: providerCallback,
    schema: {
      tags,
      summary: 'Google Calendar push notifications (svc)',
      description:
        'Google\'s events.watch channels post here (headers X-Goog-Channel-ID, X-Goog-Channel-Token, X-Goog-Resource-State); the channel\'s calendar is read again within seconds. 404 for a channel svc does not know or a wrong token.',
      response: { 200: Received },
    },
    handler: async (request) => {
      const header = (name: string) => String(request.headers[name] ?? '').slice(0, 256);
      const notification = { channelId: header('x-goog-channel-id'), token: header('x-goog-channel-token'), handshake: header('x-goog-resource-state') === 'sync' };
      const matched = await receivePushNotification(ctx, 'google_calendar', notification, Date.now());
      if (!matched) throw notFound('push_channel_not_found', 'No live channel with this id and token');
      return ok({ received: 1 });
    },
  });

  app.post('/v2/calendars/office365/notifications', {
    config: providerCallback,
    schema: {
      tags,
      summary: 'Microsoft Graph change notifications (svc)',
      description:
        'Graph subscriptions post here, change and lifecycle notifications alike. With `validationToken` (Graph checking the address when a subscription is made) the token is echoed as text/plain; otherwise each notification whose subscription and clientState match a live channel makes svc read that calendar again, and a lifecycle notification (`subscriptionRemoved`, `reauthorizationRequired`) makes it open a new subscription. Answers 202.',
      querystring: Type.Object({ validationToken: Type.Optional(Type.String({ maxLength: 1024 })) }),
      body: GraphNotifications,
      response: { 200: Type.String({ description: 'The validationToken, as text/plain' }), 202: Received },
    },
    // Graph's validation request has an empty text/plain body: it is answered before the body is validated.
    preValidation: async (request, reply) => {
      const { validationToken } = request.query as { validationToken?: string };
      if (validationToken !== undefined) await reply.status(200).type('text/plain; charset=utf-8').send(validationToken);
    },
    handler: async (request, reply) => {
      let received = 0;
      for (const notification of request.body.value) {
        const matched = await receivePushNotification(
          ctx,
          'office365_calendar',
          { channelId: notification.subscriptionId, token: notification.clientState ?? '', lifecycle: notification.lifecycleEvent },
          Date.now(),
        );
        if (matched) received++;
      }
      return reply.status(202).send(ok({ received }));
    },
  });
}
