import type { TSchema } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { principalOf } from '../../http/request-guard.js';
import type { Scope } from '../../http/scopes.js';
import { OrgMembershipParams, OrgTeamMembershipParams } from '../organizations/organizations.schemas.js';
import { acceptMembership, declineMembership, type MembershipPlace } from './membership-invitations.service.js';
import { presentMembership } from './teams.presenter.js';
import { MembershipOutput, TeamMembershipParams } from './teams.schemas.js';

interface AnswerRoutes {
  base: string;
  tag: string;
  scope: Scope;
  params: TSchema;
  place: (params: Record<string, number>) => MembershipPlace;
}

const ANSWERED_BY =
  "The invitee's own answer (svc: nobody is made a member without consent): only the user the membership is for may call it; anyone else's membership is a 404.";

/** `POST .../memberships/{membershipId}/accept` and `/decline`: the invitee answers a pending membership. */
function registerAnswers(app: App, ctx: AppContext, routes: AnswerRoutes): void {
  const membershipId = (params: unknown) => (params as { membershipId: number }).membershipId;
  app.post(`${routes.base}/accept`, {
    config: { access: access.user(routes.scope) },
    schema: {
      tags: [routes.tag],
      summary: 'Accept a membership (svc)',
      description: `${ANSWERED_BY} The membership becomes accepted (an organization's gives a profile there too); accepting one already accepted changes nothing.`,
      params: routes.params,
      response: { 200: Envelope(MembershipOutput) },
    },
    handler: async (request) => ok(presentMembership(await acceptMembership(ctx, principalOf(request).user, routes.place(request.params as Record<string, number>), membershipId(request.params)))),
  });
  app.post(`${routes.base}/decline`, {
    config: { access: access.user(routes.scope) },
    schema: {
      tags: [routes.tag],
      summary: 'Decline a membership (svc)',
      description: `${ANSWERED_BY} The pending membership is deleted and answered as it was; an accepted one is a 409.`,
      params: routes.params,
      response: { 200: Envelope(MembershipOutput) },
    },
    handler: async (request) => ok(presentMembership(await declineMembership(ctx, principalOf(request).user, routes.place(request.params as Record<string, number>), membershipId(request.params)))),
  });
}

export function registerMembershipAnswerRoutes(app: App, ctx: AppContext): void {
  registerAnswers(app, ctx, {
    base: '/v2/teams/:teamId/memberships/:membershipId',
    tag: 'Teams / Memberships',
    scope: 'TEAM_MEMBERSHIP_WRITE',
    params: TeamMembershipParams,
    place: (params) => ({ teamId: params.teamId! }),
  });
  registerAnswers(app, ctx, {
    base: '/v2/organizations/:orgId/memberships/:membershipId',
    tag: 'Orgs / Memberships',
    scope: 'ORG_MEMBERSHIP_WRITE',
    params: OrgMembershipParams,
    place: (params) => ({ teamId: params.orgId!, organization: true }),
  });
  registerAnswers(app, ctx, {
    base: '/v2/organizations/:orgId/teams/:teamId/memberships/:membershipId',
    tag: 'Orgs / Teams / Memberships',
    scope: 'TEAM_MEMBERSHIP_WRITE',
    params: OrgTeamMembershipParams,
    place: (params) => ({ teamId: params.teamId!, organizationId: params.orgId! }),
  });
}
