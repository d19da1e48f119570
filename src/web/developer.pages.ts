import type { AppContext } from '../app/context.js';
import { access } from '../http/access.js';
import type { App } from '../http/app.js';
import { SCOPES } from '../http/scopes.js';
import { DomainError } from '../lib/errors.js';
import { listClientsOfOwner, registerClient, type RegisteredClient } from '../modules/oauth/oauth-clients.service.js';
import { SCOPE_WORDS } from '../modules/oauth/oauth-scopes.js';
import type { OAuthClientRecord } from '../modules/oauth/oauth.repository.js';
import { field, fieldList, html, type Html, sendPage } from './layout.js';
import { csrfFailure, pageSchema, requireLogin, signedInAs, type SignedIn } from './page-guards.js';
import { csrfMatches } from './sessions.js';

const PAGE = '/settings/developer';

function clientTable(clients: OAuthClientRecord[]): Html {
  if (clients.length === 0) return html`<p>You have not registered an OAuth client yet.</p>`;
  return html`<table>
<caption class="visually-hidden">Your OAuth clients</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Type</th><th scope="col">Status</th></tr></thead>
<tbody>${clients.map((client) => html`<tr data-client-id="${client.id}"><td>${client.name}</td><td><code>${client.id}</code></td><td>${client.clientType}</td><td data-status>${client.status}</td></tr>`)}</tbody>
</table>`;
}

function registrationForm(csrf: string, values: Record<string, unknown>, problem?: string): Html {
  const chosen = new Set(fieldList(values, 'scopes'));
  const type = field(values, 'client_type') ?? 'confidential';
  return html`
<h2 id="register">Register a client</h2>
${problem ? html`<p class="alert" role="alert" id="register-error">${problem}</p>` : html``}
<form method="post" action="${PAGE}/clients" aria-labelledby="register">
<input type="hidden" name="csrf" value="${csrf}">
<label for="name">Name</label>
<input type="text" id="name" name="name" required maxlength="100" value="${field(values, 'name') ?? ''}">
<label for="redirect_uris">Redirect URIs (one per line, up to 10)</label>
<textarea id="redirect_uris" name="redirect_uris" rows="3" required>${field(values, 'redirect_uris') ?? ''}</textarea>
<label for="logo">Logo URL (https, optional)</label>
<input type="url" id="logo" name="logo" value="${field(values, 'logo') ?? ''}">
<fieldset>
<legend>Client type</legend>
<div class="choice"><input type="radio" id="type-confidential" name="client_type" value="confidential" ${type === 'confidential' ? html`checked` : html``}><label for="type-confidential">Confidential (a server that keeps a secret)</label></div>
<div class="choice"><input type="radio" id="type-public" name="client_type" value="public" ${type === 'public' ? html`checked` : html``}><label for="type-public">Public (a browser or mobile app; uses PKCE)</label></div>
</fieldset>
<fieldset>
<legend>Scopes</legend>
${SCOPES.map((scope) => html`<div class="choice"><input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}" ${chosen.has(scope) ? html`checked` : html``}><label for="scope-${scope}"><code>${scope}</code> ${SCOPE_WORDS[scope]}</label></div>`)}
</fieldset>
<button type="submit">Register</button>
</form>`;
}

function registered({ client, secret }: RegisteredClient): Html {
  return html`<div class="notice" role="status">
<p>Registered <strong>${client.name}</strong>. It is <strong>pending</strong> until the administrator approves it; you will get an email.</p>
<p>Client id: <code id="new-client-id">${client.id}</code></p>
${secret ? html`<p>Client secret (shown only now, keep it safe): <code id="new-client-secret">${secret}</code></p>` : html`<p>Public client: no secret; use PKCE (S256).</p>`}
</div>`;
}

export function registerDeveloperPages(app: App, ctx: AppContext): void {
  const show = async (reply: Parameters<typeof sendPage>[0], status: number, session: SignedIn, top: Html, values: Record<string, unknown> = {}, problem?: string) => {
    const clients = await listClientsOfOwner(ctx.database.db, session.user.id);
    return sendPage(reply, status, {
      title: 'Developer settings',
      body: html`${top}<h2>Your OAuth clients</h2>${clientTable(clients)}${registrationForm(session.csrfToken, values, problem)}`,
      signedIn: signedInAs(session),
    });
  };

  app.get(PAGE, {
    config: { access: access.public() },
    schema: pageSchema('Developer settings page', 'svc web page: the logged-in user\'s OAuth clients and the form registering a new one (pending until the system admin approves it).'),
    handler: async (request, reply) => {
      const session = await requireLogin(ctx, request, reply, PAGE);
      if (!session) return reply;
      return show(reply, 200, session, html``);
    },
  });

  app.post(`${PAGE}/clients`, {
    config: { access: access.public() },
    schema: pageSchema('Register an OAuth client (form)', 'svc web page: registers a client from the developer-settings form; shows its id, and a confidential client\'s secret once.'),
    handler: async (request, reply) => {
      const session = await requireLogin(ctx, request, reply, PAGE);
      if (!session) return reply;
      if (!csrfMatches(session, field(request.body, 'csrf'))) return csrfFailure(reply);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const logo = field(body, 'logo')?.trim();
      try {
        const created = await ctx.changes.transaction(ctx.database, (tx) =>
          registerClient(tx, session.user.id, {
            name: field(body, 'name') ?? '',
            redirectUris: (field(body, 'redirect_uris') ?? '').split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== ''),
            scopes: fieldList(body, 'scopes'),
            clientType: field(body, 'client_type') === 'public' ? 'public' : 'confidential',
            logo: logo === '' ? undefined : logo,
          }),
        );
        return show(reply, 201, session, registered(created));
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'bad_request') return show(reply, 400, session, html``, body, error.message);
        throw error;
      }
    },
  });
}
