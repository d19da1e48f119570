import type { Static } from 'typebox';
import { type PageLinks, presentEventType } from './event-types.presenter.js';
import type { HostView } from './team-event-types.repository.js';
import { HOST_PRIORITIES, type TeamEventTypeOutput } from './team-event-types.schemas.js';
import type { TeamEventTypeView } from './team-event-types.service.js';

type Output = Static<typeof TeamEventTypeOutput>;

/** Round robin is the only type whose hosts print `mandatory` and `priority`, as in the reference (svc adds `weight`). */
function presentHost(host: HostView, roundRobin: boolean): Output['hosts'][number] {
  const identity = { userId: host.userId, name: host.name ?? '', username: host.username ?? '', avatarUrl: host.avatarUrl };
  if (!roundRobin) return identity;
  return { ...identity, mandatory: host.mandatory, priority: HOST_PRIORITIES[host.priority] ?? 'medium', weight: host.weight };
}

/** The team's public booking page: `<APP_URL>/team/<team slug>/<slug>`. */
function teamBookingUrl(teamSlug: string, slug: string, links: PageLinks): string {
  return `${links.appUrl.replace(/\/+$/, '')}/team/${encodeURIComponent(teamSlug)}/${encodeURIComponent(slug)}`;
}

/**
 * `TeamEventTypeOutput_2024_06_14`: the personal output without `users`, plus the team's fields. A
 * managed child (`parentEventTypeId` set) prints the parent's scheduling type and team, with no team id.
 */
export function presentTeamEventType({ eventType: row, team, hosts }: TeamEventTypeView, links: PageLinks, hostsLimit?: number): Output {
  const { users: _users, ownerId: _ownerId, bookingUrl: _bookingUrl, ...personal } = presentEventType({ eventType: row, ownerId: 0, users: [] }, links);
  const schedulingType = row.parentId !== null ? 'managed' : row.schedulingType;
  const shown = hostsLimit === undefined ? hosts : hosts.slice(0, hostsLimit);
  return {
    ...personal,
    bookingUrl: teamBookingUrl(team.slug, row.slug, links),
    teamId: row.teamId,
    ownerId: row.userId,
    parentEventTypeId: row.parentId,
    hosts: shown.map((host) => presentHost(host, schedulingType === 'roundRobin')),
    assignAllTeamMembers: row.assignAllTeamMembers,
    schedulingType,
    team: {
      id: team.id,
      slug: team.slug,
      name: team.name,
      bannerUrl: team.bannerUrl,
      logoUrl: team.logoUrl,
      weekStart: team.weekStart,
      brandColor: team.brandColor,
      darkBrandColor: team.darkBrandColor,
      theme: team.theme,
    },
    ...(row.emailSettings ? { emailSettings: row.emailSettings } : {}),
    rescheduleWithSameRoundRobinHost: row.rescheduleWithSameRoundRobinHost,
    assignRRMembersUsingSegment: row.assignRRMembersUsingSegment,
    rrSegmentQuery: row.rrSegmentQuery,
  };
}

export function presentDeletedTeamEventType(row: { id: number; title: string }) {
  return { id: row.id, title: row.title };
}
