import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { AppContext } from '../app/context.js';
import { sendErrorPage } from './layout.js';
import { loginUrl } from './login.pages.js';
import { currentSession, type WebSession } from './sessions.js';
import type { UserRecord } from '../modules/users/users.repository.js';

export const PAGE_TAGS = ['Web pages (svc)'];

/** A page's entry in the API document: it answers HTML, and forms post `application/x-www-form-urlencoded`. */
export function pageSchema(summary: string, description: string, querystring?: TSchema) {
  return {
    tags: PAGE_TAGS,
    summary,
    description,
    ...(querystring ? { querystring } : {}),
    produces: ['text/html'],
  };
}

export const csrfFailure = (reply: FastifyReply) =>
  sendErrorPage(reply, 403, 'The form has expired', 'This form could not be checked (its security token is missing or out of date). Go back, reload the page and try again.');

export type SignedIn = WebSession & { user: UserRecord };

/** The logged-in session, or null after sending the browser to the login page (coming back to `next`). */
export async function requireLogin(ctx: Pick<AppContext, 'database' | 'config'>, request: FastifyRequest, reply: FastifyReply, next: string): Promise<SignedIn | null> {
  const session = await currentSession(ctx, request);
  if (session?.user) return session as SignedIn;
  await reply.redirect(loginUrl(next), 303);
  return null;
}

export const signedInAs = (session: SignedIn) => ({ email: session.user.email, csrfToken: session.csrfToken });

