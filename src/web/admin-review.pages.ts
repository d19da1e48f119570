import { Type } from 'typebox';
import type { AppContext } from '../app/context.js';
import { access } from '../http/access.js';
import type { App } from '../http/app.js';
import { listClientsByStatus, reviewClient } from '../modules/oauth/oauth-clients.service.js';
import { field, html, type Html, sendErrorPage, sendPage } from './layout.js';
import { csrfFailure, pageSchema, requireLogin, signedInAs } from './page-guards.js';
import { csrfMatches } from './sessions.js';

const PAGE = '/settings/admin/oauth-clients';

export function registerAdminReviewPages(app: App, ctx: AppContext): void {
  const reviewForm = (csrf: string, clientId: string, decision: 'approved' | 'rejected', label: string, secondary = false): Html =>
    html`<form class="inline" method="post" action="${PAGE}/${clientId}/review"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="decision" value="${decision}"><button type="submit" ${secondary ? html`class="secondary"` : html``} aria-label="${label}">${label.split(' ')[0]}</button></form>`;

  app.get(PAGE, {
    config: { access: access.public() },
    schema: pageSchema('OAuth client review page', 'svc web page, system admin only: pending OAuth clients with approve and reject buttons.'),
    handler: async (request, reply) => {
      const session = await requireLogin(ctx, request, reply, PAGE);
      if (!session) return reply;
      if (session.user.role !== 'ADMIN') return sendErrorPage(reply, 403, 'Not allowed', 'Only the system administrator can review OAuth clients.');
      const pending = await listClientsByStatus(ctx.database.db, 'pending', { take: 250, skip: 0 });
      const rows = pending.map(
        (client) => html`<tr data-client-id="${client.id}"><td>${client.name}</td><td><code>${client.id}</code></td><td>${client.clientType}</td><td>${client.redirectUris.join(' ')}</td><td>${client.scopes.join(' ')}</td>
<td>${reviewForm(session.csrfToken, client.id, 'approved', `Approve ${client.name}`)} ${reviewForm(session.csrfToken, client.id, 'rejected', `Reject ${client.name}`, true)}</td></tr>`,
      );
      const body = pending.length
        ? html`<table><thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Type</th><th scope="col">Redirect URIs</th><th scope="col">Scopes</th><th scope="col">Decision</th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p>No client is waiting for review.</p>`;
      return sendPage(reply, 200, { title: 'OAuth clients to review', body, signedIn: signedInAs(session) });
    },
  });

  app.post(`${PAGE}/:clientId/review`, {
    config: { access: access.public() },
    schema: { ...pageSchema('Review an OAuth client (form)', 'svc web page, system admin only: approves or rejects a client; the owner is told by email.'), params: Type.Object({ clientId: Type.String() }) },
    handler: async (request, reply) => {
      const session = await requireLogin(ctx, request, reply, PAGE);
      if (!session) return reply;
      if (!csrfMatches(session, field(request.body, 'csrf'))) return csrfFailure(reply);
      if (session.user.role !== 'ADMIN') return sendErrorPage(reply, 403, 'Not allowed', 'Only the system administrator can review OAuth clients.');
      const decision = field(request.body, 'decision');
      if (decision !== 'approved' && decision !== 'rejected') return sendErrorPage(reply, 400, 'Something is not right', 'decision must be approved or rejected.');
      await ctx.changes.transaction(ctx.database, (tx, announce) => reviewClient(tx, announce, request.params.clientId, decision, new Date(ctx.clock())));
      return reply.redirect(PAGE, 303);
    },
  });
}
