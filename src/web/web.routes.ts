import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app/context.js';
import type { App } from '../http/app.js';
import { DomainError } from '../lib/errors.js';
import { registerAdminReviewPages } from './admin-review.pages.js';
import { registerAuthorizePages } from './authorize.pages.js';
import { registerDeveloperPages } from './developer.pages.js';
import { registerInvitationPages } from './invitation.pages.js';
import { registerLandingPages } from './landing.pages.js';
import { acceptFormBodies, sendErrorPage } from './layout.js';
import { registerLoginPages } from './login.pages.js';
import { registerVideoPages } from './video.pages.js';
import { bookerApi } from './booker/booker-api.js';
import { registerBookerPages } from './booker/booker.pages.js';
import { registerManagePages } from './booker/manage.pages.js';

const FORM_LIMIT_BYTES = 64 * 1024;

const DOMAIN_STATUS: Record<DomainError['kind'], number> = {
  bad_request: 400, unauthorized: 401, token_expired: 401, forbidden: 403, not_found: 404, conflict: 409, unprocessable: 422, too_many_requests: 429, unavailable: 503,
};

/** Errors on a page are shown as a page (never the API's JSON envelope). */
function handlePageError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof DomainError) return sendErrorPage(reply, DOMAIN_STATUS[error.kind], 'Something is not right', error.message);
  const status = (error as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) return sendErrorPage(reply, status, 'Something is not right', error.message);
  request.log.error({ err: error }, 'unhandled error on a page');
  return sendErrorPage(reply, 500, 'Something went wrong', 'The page could not be shown. Please try again.');
}

/**
 * svc's web pages at APP_URL: the landing page, login, OAuth consent, developer settings, the admin review, team invitations, the hosts' way into a booking's video, and the booking pages (book,
 * see, reschedule and cancel a booking). Server
 * rendered, form posts only (no script), each form carrying the session's CSRF token.
 */
export function registerWebPages(app: App, ctx: AppContext): void {
  void app.register(async (pages) => {
    acceptFormBodies(pages, FORM_LIMIT_BYTES);
    pages.setErrorHandler(handlePageError);
    registerLoginPages(pages, ctx);
    registerAuthorizePages(pages, ctx);
    registerDeveloperPages(pages, ctx);
    registerAdminReviewPages(pages, ctx);
    registerInvitationPages(pages, ctx);
    registerVideoPages(pages, ctx);
    registerManagePages(pages, ctx, bookerApi(app));
    registerBookerPages(pages, ctx, bookerApi(app));
    registerLandingPages(pages, ctx);
  });
}
