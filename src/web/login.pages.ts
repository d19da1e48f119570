import { Type } from 'typebox';
import type { AppContext } from '../app/context.js';
import { access } from '../http/access.js';
import type { App } from '../http/app.js';
import { attemptPasswordLogin } from '../modules/auth/login-failures.service.js';
import { html, field, sendErrorPage, sendPage } from './layout.js';
import { csrfFailure, pageSchema } from './page-guards.js';
import { csrfMatches, currentSession, ensureSession, logIn, logOut } from './sessions.js';

const DEFAULT_NEXT = '/settings/developer';

// No path of svc has these, and each can send a browser elsewhere: it strips tabs and line breaks from a
// URL (`/\t/evil.example` is `//evil.example`), reads `\` as `/`, and takes `//` for another host. C1
// controls and the Unicode line separators go with them.
const UNSAFE_IN_NEXT = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\\]|\/\//;

/**
 * Where to go after logging in: a path of this site (APP_URL's origin once resolved by the WHATWG URL
 * parser, as a browser resolves a Location), else the developer page.
 */
function safeNextPath(next: string | undefined, appUrl: string): string {
  if (!next || !next.startsWith('/') || UNSAFE_IN_NEXT.test(next)) return DEFAULT_NEXT;
  let target: URL;
  try {
    target = new URL(next, appUrl);
  } catch {
    return DEFAULT_NEXT;
  }
  if (target.origin !== new URL(appUrl).origin) return DEFAULT_NEXT;
  return `${target.pathname}${target.search}${target.hash}`;
}

export const loginUrl = (next: string) => `/auth/login?next=${encodeURIComponent(next)}`;

export function registerLoginPages(app: App, ctx: AppContext): void {
  const loginForm = (csrf: string, next: string, email = '', problem?: string) => html`
${problem ? html`<p class="alert" role="alert" id="login-error">${problem}</p>` : html``}
<form method="post" action="/auth/login">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="next" value="${next}">
<label for="email">Email</label>
<input type="email" id="email" name="email" autocomplete="username" required value="${email}" ${problem ? html`aria-describedby="login-error"` : html``}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>`;

  app.get('/auth/login', {
    config: { access: access.public() },
    schema: pageSchema('Login page', 'svc web page: the password login form (users whose account has a password; `POST /v2/admin/users` may set one).', Type.Object({ next: Type.Optional(Type.String()) })),
    handler: async (request, reply) => {
      const session = await ensureSession(ctx, request, reply);
      const next = safeNextPath(field(request.query, 'next'), ctx.config.appUrl);
      if (session.user) return reply.redirect(next, 303);
      return sendPage(reply, 200, { title: 'Log in', body: loginForm(session.csrfToken, next) });
    },
  });

  app.post('/auth/login', {
    config: { access: access.public() },
    schema: pageSchema(
      'Log in',
      'svc web page: checks the email and password and starts a session (HttpOnly, SameSite=Lax cookie; the session is stored server side). After `SVC_LOGIN_ACCOUNT_FAILURES` failures for one email (5 by default), or `SVC_LOGIN_IP_FAILURES` from one address in an hour (20), each attempt waits, 1 minute doubling with each further failure up to an hour: meanwhile it answers 429 with `Retry-After`, without checking the password.',
    ),
    handler: async (request, reply) => {
      const session = await currentSession(ctx, request);
      if (!csrfMatches(session, field(request.body, 'csrf'))) return csrfFailure(reply);
      const next = safeNextPath(field(request.body, 'next'), ctx.config.appUrl);
      const email = field(request.body, 'email') ?? '';
      const attempt = { email, password: field(request.body, 'password') ?? '', clientIp: request.ip };
      const outcome = await attemptPasswordLogin(ctx.database, ctx.config.login, attempt, new Date(ctx.clock()));
      if (outcome.kind === 'waiting') {
        // Worded so that it says nothing about the password: a right one is refused as well.
        const minutes = Math.ceil(outcome.retryAfterMs / 60_000);
        reply.header('retry-after', String(Math.ceil(outcome.retryAfterMs / 1000)));
        const problem = `Too many attempts; try again in ${minutes === 1 ? '1 minute' : `${minutes} minutes`}.`;
        return sendPage(reply, 429, { title: 'Log in', body: loginForm(session!.csrfToken, next, email, problem) });
      }
      if (outcome.kind === 'refused') return sendPage(reply, 401, { title: 'Log in', body: loginForm(session!.csrfToken, next, email, 'The email or password is not right.') });
      await logIn(ctx, request, reply, session, outcome.user);
      return reply.redirect(next, 303);
    },
  });

  app.post('/auth/logout', {
    config: { access: access.public() },
    schema: pageSchema('Log out', 'svc web page: ends the session.'),
    handler: async (request, reply) => {
      const session = await currentSession(ctx, request);
      if (!session) return reply.redirect('/auth/login', 303);
      if (!csrfMatches(session, field(request.body, 'csrf'))) return csrfFailure(reply);
      await logOut(ctx, request, reply, session);
      return sendErrorPage(reply, 200, 'Logged out', 'You are logged out.');
    },
  });
}
