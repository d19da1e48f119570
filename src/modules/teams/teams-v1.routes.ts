import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { principalOf } from '../../http/request-guard.js';
import { presentMembership, presentTeam } from './teams.presenter.js';
import { ApiKeyQuery, CreateTeamBodyV1, MembershipOutput, TeamOutput } from './teams.schemas.js';
import * as teams from './teams.service.js';

/** `POST /v1/teams` (spec endpoint 19): version 1 of the API, authenticated by the `apiKey` query parameter. */
export function registerTeamsV1Routes(app: App, ctx: AppContext): void {
  app.post('/v1/teams', {
    config: { access: access.v1ApiKey() },
    schema: {
      tags: ['Teams (v1)'],
      summary: 'Create a team (version 1)',
      description:
        'Version 1: the API key goes in the `apiKey` query parameter. The caller becomes the OWNER, or `ownerId` when the system admin sends it. `parentId` creates the team in an organization the caller administers.',
      querystring: ApiKeyQuery,
      body: CreateTeamBodyV1,
      response: { 201: Type.Object({ team: TeamOutput, owner: MembershipOutput, message: Type.String() }) },
    },
    handler: async (request, reply) => {
      const { team, owner } = await teams.createTeamV1(ctx, principalOf(request).user, request.body);
      return reply.status(201).send({
        team: presentTeam(team),
        owner: presentMembership(owner!),
        message: `Team created successfully. We also made user with ID=${owner!.userId} the owner of this team.`,
      });
    },
  });
}
