import { Type } from 'typebox';
import type { AppContext } from '../app/context.js';
import { access } from '../http/access.js';
import type { App } from '../http/app.js';
import { hostVideoLink } from '../modules/conferencing/video-sessions.service.js';
import { pageSchema, requireLogin } from './page-guards.js';

/** The host's way into a booking's built-in video room: the link host mails carry. */
export const hostVideoPath = (uid: string) => `/video/${encodeURIComponent(uid)}`;

export function registerVideoPages(app: App, ctx: AppContext): void {
  app.get('/video/:bookingUid', {
    config: { access: access.public() },
    schema: {
      ...pageSchema(
        'Join a booking’s video as its host',
        'svc web page: sends the logged-in organizer or host of the booking to its built-in video room, on Daily with a meeting token naming them (so the no-show triggers know they joined). A visitor logs in first; anyone else is refused.',
      ),
      params: Type.Object({ bookingUid: Type.String({ maxLength: 128 }) }),
    },
    handler: async (request, reply) => {
      const { bookingUid } = request.params as { bookingUid: string };
      const session = await requireLogin(ctx, request, reply, hostVideoPath(bookingUid));
      if (!session) return reply;
      const link = await hostVideoLink(ctx, session.user, bookingUid);
      // The link holds a token that joins as this host: never kept by a cache.
      return reply.header('cache-control', 'no-store').redirect(link, 303);
    },
  });
}
