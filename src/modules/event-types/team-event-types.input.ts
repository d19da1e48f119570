import type { Static } from 'typebox';
import { toChanges } from './event-types.versions.js';
import { HOST_PRIORITIES, type CreateTeamEventTypeBody, type UpdateTeamEventTypeBody } from './team-event-types.schemas.js';
import { type CreateTeamEventTypeInput, normalizeSchedulingType, type TeamEventTypeChanges } from './team-event-types.service.js';

type UpdateBody = Static<typeof UpdateTeamEventTypeBody>;
type CreateBody = Static<typeof CreateTeamEventTypeBody>;

/** Wire -> internal for a team body: the personal fields as for personal event types, then the team's. */
export function toTeamChanges(body: UpdateBody): TeamEventTypeChanges {
  const { schedulingType, hosts, assignAllTeamMembers, emailSettings, rescheduleWithSameRoundRobinHost, isRRWeightsEnabled, assignRRMembersUsingSegment, rrSegmentQuery, ...personal } = body;
  return {
    ...toChanges(personal, true),
    schedulingType: schedulingType === undefined ? undefined : normalizeSchedulingType(schedulingType),
    hosts: hosts?.map((host) => ({
      userId: host.userId,
      mandatory: host.mandatory,
      priority: host.priority === undefined ? undefined : HOST_PRIORITIES.indexOf(host.priority),
      weight: host.weight,
    })),
    assignAllTeamMembers,
    emailSettings,
    rescheduleWithSameRoundRobinHost,
    isRRWeightsEnabled,
    assignRRMembersUsingSegment,
    rrSegmentQuery,
  };
}

export function toCreateTeamInput(body: CreateBody): CreateTeamEventTypeInput {
  const changes = toTeamChanges(body);
  return { ...changes, title: body.title, slug: changes.slug!, lengthInMinutes: body.lengthInMinutes, schedulingType: changes.schedulingType! };
}
