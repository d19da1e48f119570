// What svc's booking pages show of an event type before anyone books: its API output (the same
// presenters as GET /v2/event-types and GET /v2/teams/{teamId}/event-types), and how the slots and
// bookings API name it. Hidden event types are shown through a usable private link only; an expired or
// used-up link is refused as the API refuses it.
import type { Db } from '../../db/client.js';
import { notFound } from '../../lib/errors.js';
import { findTeamSlotProfileBySlug } from '../slots/slots.repository.js';
import * as repo from './event-types.repository.js';
import { type PageLinks, presentEventType } from './event-types.presenter.js';
import { listEventTypes } from './event-types.service.js';
import { findUsableLink } from './private-links.service.js';
import { presentTeamEventType } from './team-event-types.presenter.js';
import { findTeam } from './team-event-types.repository.js';
import { getTeamEventType } from './team-event-types.service.js';

/** A booking page's path, parsed: `/{username}/{slug}`, `/team/{team}/{slug}`, `/org/{org}/team/{team}/{slug}`, `/d/{link}/{slug}`. */
export type BookingPageTarget =
  | { kind: 'user'; username: string; slug: string }
  | { kind: 'team'; teamSlug: string; slug: string; organizationSlug?: string | undefined }
  | { kind: 'link'; linkId: string; slug: string }
  /** The event type of a booking being rescheduled: whoever holds the booking's uid may pick a new time, hidden or not. */
  | { kind: 'booked'; eventTypeId: number };

export interface BookingPageEventType {
  /** The event type as the API prints it (personal or team output). */
  output: Record<string, any>;
  /** Who hosts it, as the page names them. */
  hostNames: string[];
  teamName: string | null;
  /** The query fields naming it for GET /v2/slots and POST /v2/bookings. */
  apiTarget: Record<string, string | number>;
}

const missing = () => notFound('event_type_not_found', 'This booking page does not exist, or its event type is not open for booking.');

const names = (users: readonly { name: string | null; username: string | null }[]) => users.map((user) => user.name || user.username || '').filter(Boolean);

export async function bookingPageEventType(db: Db, links: PageLinks, target: BookingPageTarget, now: number): Promise<BookingPageEventType> {
  switch (target.kind) {
    case 'user': {
      const [view] = await listEventTypes(db, null, { username: target.username, eventSlug: target.slug });
      if (!view || view.eventType.hidden) throw missing();
      return { output: presentEventType(view, links), hostNames: names(view.users), teamName: null, apiTarget: { eventTypeId: view.eventType.id } };
    }
    case 'team': {
      const profile = await findTeamSlotProfileBySlug(db, target.teamSlug, target.slug, target.organizationSlug);
      if (!profile) throw missing();
      return teamPage(db, links, profile.teamId, profile.id, false);
    }
    case 'link': {
      const link = await findUsableLink(db, target.linkId, now);
      const row = await repo.findEventTypeById(db, link.eventTypeId);
      if (!row || row.slug.toLowerCase() !== target.slug.toLowerCase()) throw missing();
      return { ...(await anyEventType(db, links, row)), apiTarget: { privateLinkId: target.linkId } };
    }
    case 'booked': {
      const row = await repo.findEventTypeById(db, target.eventTypeId);
      if (!row) throw missing();
      return anyEventType(db, links, row);
    }
  }
}

/** A personal or team event type, hidden or not (the caller has a right to it: a link, a booking). */
async function anyEventType(db: Db, links: PageLinks, row: repo.EventTypeRow): Promise<BookingPageEventType> {
  if (row.teamId !== null) return teamPage(db, links, row.teamId, row.id, true);
  const owner = row.userId === null ? undefined : await repo.findOwner(db, row.userId);
  if (!owner) throw missing();
  return { output: presentEventType({ eventType: row, ownerId: owner.id, users: [owner] }, links), hostNames: names([owner]), teamName: null, apiTarget: { eventTypeId: row.id } };
}

async function teamPage(db: Db, links: PageLinks, teamId: number, eventTypeId: number, viaLink: boolean): Promise<BookingPageEventType> {
  const team = await findTeam(db, teamId);
  if (!team) throw missing();
  const view = await getTeamEventType(db, team, eventTypeId);
  if (view.eventType.hidden && !viaLink) throw missing();
  return { output: presentTeamEventType(view, links), hostNames: names(view.hosts), teamName: team.name, apiTarget: { eventTypeId } };
}
