import { Type } from 'typebox';
import type { AppContext } from '../app/context.js';
import { access } from '../http/access.js';
import type { App } from '../http/app.js';
import { answerInvitation, openInvitation, type OpenedInvitation } from '../modules/teams/membership-invitations.service.js';
import { field, html, sendPage } from './layout.js';
import { csrfFailure, pageSchema, requireLogin, signedInAs } from './page-guards.js';
import { csrfMatches } from './sessions.js';

const ANSWER_PATH = '/teams/invitations';

/** "Sales" or "Sales (Acme)": the team and the organization it belongs to. */
const teamTitle = ({ team, organization }: OpenedInvitation) => (organization ? `${team.name} (${organization.name})` : team.name);

function invitationBody(opened: OpenedInvitation, token: string, csrf: string) {
  const { membership, organization } = opened;
  const what = membership
    ? html`<p>You were invited to join <strong id="team-name">${teamTitle(opened)}</strong> as <strong>${membership.role}</strong>.</p>`
    : html`<p>This link lets you join <strong id="team-name">${teamTitle(opened)}</strong> as a member${organization ? html`, and its organization if you are not in it yet` : html``}.</p>`;
  return html`${what}
<p>Members of a team can see your schedules and email, and can book you as a host of its event types. Until you accept, it sees nothing of yours.</p>
<form method="post" action="${ANSWER_PATH}">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="token" value="${token}">
<button type="submit" name="answer" value="accept">Accept</button>
${membership ? html`<button type="submit" name="answer" value="decline" class="secondary">Decline</button>` : html``}
</form>`;
}

/**
 * `{APP_URL}/teams?token=...`: the link svc mails to a user invited to a team, and the reference's team
 * invite link. The logged-in user accepts or declines (a form post with the session's CSRF token).
 */
export function registerInvitationPages(app: App, ctx: AppContext): void {
  app.get('/teams', {
    config: { access: access.public() },
    schema: pageSchema(
      'Team invitation page',
      'svc web page: the invitation of `token` (a mailed invitation, for its invitee only; or a team invite link) with Accept and Decline buttons. A visitor logs in first.',
      Type.Object({ token: Type.Optional(Type.String({ maxLength: 128 })) }),
    ),
    handler: async (request, reply) => {
      const token = field(request.query, 'token') ?? '';
      const session = await requireLogin(ctx, request, reply, `/teams?token=${encodeURIComponent(token)}`);
      if (!session) return reply;
      const opened = await openInvitation(ctx.database.db, token, session.user.id, ctx.clock());
      return sendPage(reply, 200, { title: `Join ${opened.team.name}`, body: invitationBody(opened, token, session.csrfToken), signedIn: signedInAs(session) });
    },
  });

  app.post(ANSWER_PATH, {
    config: { access: access.public() },
    schema: pageSchema('Answer a team invitation', 'svc web page: accepts (joins) or declines the invitation of `token` for the logged-in user.'),
    handler: async (request, reply) => {
      const token = field(request.body, 'token') ?? '';
      const session = await requireLogin(ctx, request, reply, `/teams?token=${encodeURIComponent(token)}`);
      if (!session) return reply;
      if (!csrfMatches(session, field(request.body, 'csrf'))) return csrfFailure(reply);
      const accept = field(request.body, 'answer') === 'accept';
      const opened = await answerInvitation(ctx, session.user, token, accept);
      const said = accept ? html`<p class="notice" role="status">You joined <strong>${teamTitle(opened)}</strong>.</p>` : html`<p class="notice" role="status">You declined the invitation to <strong>${teamTitle(opened)}</strong>.</p>`;
      return sendPage(reply, 200, { title: accept ? 'Invitation accepted' : 'Invitation declined', body: said, signedIn: signedInAs(session) });
    },
  });
}
