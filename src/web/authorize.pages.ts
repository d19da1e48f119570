import { Type } from 'typebox';
import type { AppContext } from '../app/context.js';
import { access } from '../http/access.js';
import type { App } from '../http/app.js';
import type { Scope } from '../http/scopes.js';
import { type AuthorizationGrant, type AuthorizationParams, checkAuthorizationRequest, errorRedirect, issueAuthorizationCode, oauthIssuer } from '../modules/oauth/oauth-grants.service.js';
import { SCOPE_WORDS } from '../modules/oauth/oauth-scopes.js';
import { field, html, sendErrorPage, sendPage } from './layout.js';
import { csrfFailure, pageSchema, requireLogin, signedInAs, type SignedIn } from './page-guards.js';
import { csrfMatches } from './sessions.js';

const PARAMS = ['client_id', 'redirect_uri', 'state', 'scope', 'response_type', 'code_challenge', 'code_challenge_method'] as const;

const AuthorizeQuery = Type.Object(Object.fromEntries(PARAMS.map((name) => [name, Type.Optional(Type.String())])));

function paramsOf(source: unknown): AuthorizationParams {
  return Object.fromEntries(PARAMS.map((name) => [name, field(source, name)])) as AuthorizationParams;
}

/** The authorization request as a URL of this page (where login comes back to). */
function authorizeUrl(params: AuthorizationParams): string {
  const query = new URLSearchParams();
  for (const name of PARAMS) if (params[name] !== undefined) query.set(name, params[name]!);
  return `/auth/oauth2/authorize?${query}`;
}

function consentPage(grant: AuthorizationGrant, params: AuthorizationParams, session: SignedIn) {
  const { client } = grant;
  const hidden = PARAMS.filter((name) => params[name] !== undefined).map((name) => html`<input type="hidden" name="${name}" value="${params[name]}">`);
  return html`
<div class="app">
${client.logo ? html`<img src="${client.logo}" alt="${client.name} logo">` : html``}
<p><strong id="client-name">${client.name}</strong> wants to act for you (<strong>${session.user.email}</strong>) in svc.</p>
</div>
<h2 id="scopes-heading">It asks to:</h2>
<ul class="scopes" aria-labelledby="scopes-heading">
${grant.scopes.map((scope) => html`<li data-scope="${scope}">${SCOPE_WORDS[scope as Scope]}</li>`)}
</ul>
<p>After you allow it, you go back to <code>${new URL(grant.redirectUri).origin}</code>.</p>
<form method="post" action="/auth/oauth2/authorize">
<input type="hidden" name="csrf" value="${session.csrfToken}">
${hidden}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`;
}

export function registerAuthorizePages(app: App, ctx: AppContext): void {
  const issuer = oauthIssuer(ctx.config.appUrl);
  app.get('/auth/oauth2/authorize', {
    config: { access: access.public() },
    schema: pageSchema(
      'OAuth 2.0 authorization (consent page)',
      'Endpoint 28 (spec 5.2, 7.1): opened in the browser by a third-party app. Errors before the client and redirect URI are validated are shown on a page; later ones redirect to `redirect_uri` with `error`, `error_description`, `state` and `iss` (RFC 9207). Logs the user in if needed, then asks for consent.',
      AuthorizeQuery,
    ),
    handler: async (request, reply) => {
      const params = paramsOf(request.query);
      const checked = await checkAuthorizationRequest(ctx.database.db, params, issuer);
      if (checked.kind === 'page') return sendErrorPage(reply, 400, 'This app cannot be authorized', checked.message);
      if (checked.kind === 'redirect') return reply.redirect(checked.location, 303);
      const session = await requireLogin(ctx, request, reply, authorizeUrl(params));
      if (!session) return reply;
      return sendPage(reply, 200, {
        title: `Authorize ${checked.grant.client.name}`,
        body: consentPage(checked.grant, params, session),
        signedIn: signedInAs(session),
        formTargets: [new URL(checked.grant.redirectUri).origin],
      });
    },
  });

  app.post('/auth/oauth2/authorize', {
    config: { access: access.public() },
    schema: pageSchema('OAuth 2.0 consent decision', 'svc web page: the consent form posts here (CSRF-checked); allowing redirects to `redirect_uri` with `code`, `state` and `iss` (RFC 9207), denying with `error=access_denied`.'),
    handler: async (request, reply) => {
      const params = paramsOf(request.body);
      const session = await requireLogin(ctx, request, reply, authorizeUrl(params));
      if (!session) return reply;
      if (!csrfMatches(session, field(request.body, 'csrf'))) return csrfFailure(reply);
      // Checked again: the client may have been rejected, or its redirect URIs changed, since the page was shown.
      const checked = await checkAuthorizationRequest(ctx.database.db, params, issuer);
      if (checked.kind === 'page') return sendErrorPage(reply, 400, 'This app cannot be authorized', checked.message);
      if (checked.kind === 'redirect') return reply.redirect(checked.location, 303);
      if (field(request.body, 'decision') !== 'allow') {
        return reply.redirect(errorRedirect(checked.grant, 'access_denied', 'The user denied the request.').location, 303);
      }
      const location = await ctx.changes.transaction(ctx.database, (tx) => issueAuthorizationCode(tx, checked.grant, session.user.id, new Date(ctx.clock())));
      return reply.redirect(location, 303);
    },
  });
}
