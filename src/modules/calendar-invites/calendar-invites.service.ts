// Calendar-invite templates (spec 2.9): per event type and as an organization default, one setting
// per audience (host, guest).
import type { Db } from '../../db/client.js';
import type { OrganizationCalendarInvites } from '../../db/schema/teams.js';
import { badRequest, fieldRejected, notFound } from '../../lib/errors.js';
import { ownsEventType } from '../access/resource-policy.js';
import type { CalendarInviteMode, CalendarInvites } from '../event-types/event-type-model.js';
import * as repo from './calendar-invites.repository.js';
import { sanitizeTemplate } from './sanitize-template.js';

type Audience = 'host' | 'guest';
const AUDIENCES: readonly Audience[] = ['host', 'guest'];

interface AudienceInput<M extends string> {
  mode: M;
  template?: string | null | undefined;
}
export type InvitesPatch<M extends string> = Partial<Record<Audience, AudienceInput<M>>>;

/** 400 unless the body names an audience. */
function assertSomeAudience(patch: InvitesPatch<string>): void {
  if (!patch.host && !patch.guest) throw badRequest('calendar_invites_empty', 'Provide host or guest calendar invite settings.');
}

/**
 * One audience as stored: a custom template sanitized (400 when none is given); one emptied by
 * sanitization falls back to `emptied`. Other modes keep no template.
 */
function audienceSetting<M extends string>(audience: Audience, input: AudienceInput<M>, emptied: M): { mode: M; template: string | null } {
  if (input.mode !== 'custom') return { mode: input.mode, template: null };
  if (typeof input.template !== 'string' || input.template.trim() === '') {
    throw fieldRejected(`${audience}.template`, 'calendar_invite_template_required', `${audience}.template is required when ${audience}.mode is custom.`, input.template ?? null);
  }
  const template = sanitizeTemplate(input.template);
  return template ? { mode: input.mode, template } : { mode: emptied, template: null };
}

const present = <M extends string>(setting: { mode: M; template: string | null } | undefined, fallback: M) => ({ mode: setting?.mode ?? fallback, template: setting?.template ?? null });

export function presentOrganizationInvites(invites: OrganizationCalendarInvites | null) {
  return { host: present(invites?.host, 'inherit'), guest: present(invites?.guest, 'inherit') };
}

function presentEventTypeInvites(row: repo.EventTypeInvitesRow) {
  // A managed child shows (and its bookings use) its parent's settings.
  const own = row.parentId === null ? row.invites : row.parentInvites;
  return {
    host: present<CalendarInviteMode>(own?.host, 'inherit'),
    guest: present<CalendarInviteMode>(own?.guest, 'inherit'),
    organizationDefault: row.organizationId === null ? null : presentOrganizationInvites(row.organizationInvites),
  };
}

/** Whose event type a calendar-invite route reaches: its owner's (personal) or a team's. */
export type EventTypeScope = { kind: 'user'; userId: number } | { kind: 'team'; teamId: number };

const eventTypeNotFound = (id: number) => notFound('event_type_not_found', `Event type with ID=${id} does not exist.`);

function inScope(row: repo.EventTypeInvitesRow, scope: EventTypeScope): boolean {
  return scope.kind === 'user' ? ownsEventType(scope.userId, row) : row.teamId === scope.teamId;
}

export async function getEventTypeInvites(db: Db, scope: EventTypeScope, id: number) {
  const row = await repo.findEventTypeInvites(db, id);
  if (!row || !inScope(row, scope)) throw eventTypeNotFound(id);
  return presentEventTypeInvites(row);
}

/** `invites` with the emptied audiences `standard`: what they become where there is no organization. */
export function emptiedAsStandard(invites: CalendarInvites | null, emptied: readonly ('host' | 'guest')[] | undefined): CalendarInvites | null {
  if (!emptied || emptied.length === 0) return invites;
  const settled: CalendarInvites = { ...(invites ?? {}) };
  for (const audience of emptied) settled[audience] = { mode: 'standard', template: null };
  return settled;
}

/**
 * Spec 2.9: a custom template that sanitization emptied in an event type's create or update body was
 * stored as `inherit`; with no organization to inherit from it becomes `standard`. Returns the row as
 * stored.
 */
export async function settleEmptiedInvites<Row extends { id: number; calendarInvites: CalendarInvites | null }>(tx: Db, eventType: Row, emptied: readonly ('host' | 'guest')[] | undefined): Promise<Row> {
  if (!emptied || emptied.length === 0) return eventType;
  const row = await repo.findEventTypeInvites(tx, eventType.id);
  if (!row || row.organizationId !== null) return eventType;
  const invites = emptiedAsStandard(eventType.calendarInvites, emptied)!;
  await repo.updateEventTypeInvites(tx, eventType.id, invites);
  return { ...eventType, calendarInvites: invites };
}

export async function updateEventTypeInvites(tx: Db, scope: EventTypeScope, id: number, patch: InvitesPatch<CalendarInviteMode>) {
  const row = await repo.findEventTypeInvites(tx, id, true);
  if (!row || !inScope(row, scope)) throw eventTypeNotFound(id);
  assertSomeAudience(patch);
  if (row.parentId !== null) {
    throw badRequest('managed_event_type_child', `Event type ${id} belongs to the managed event type ${row.parentId}: its calendar invites follow the parent's; change them there.`);
  }
  // Emptied by sanitization: inherit when there is an organization default to inherit, else standard.
  const emptied: CalendarInviteMode = row.organizationId === null ? 'standard' : 'inherit';
  const next: CalendarInvites = { ...(row.invites ?? {}) };
  for (const audience of AUDIENCES) {
    const input = patch[audience];
    if (input) next[audience] = audienceSetting(audience, input, emptied);
  }
  await repo.updateEventTypeInvites(tx, id, next);
  return presentEventTypeInvites({ ...row, invites: next });
}

export async function getOrganizationInvites(db: Db, organizationId: number) {
  return presentOrganizationInvites(await repo.findOrganizationInvites(db, organizationId));
}

export async function updateOrganizationInvites(tx: Db, organizationId: number, patch: InvitesPatch<'inherit' | 'custom'>) {
  assertSomeAudience(patch);
  const next: OrganizationCalendarInvites = { ...((await repo.findOrganizationInvites(tx, organizationId, true)) ?? {}) };
  for (const audience of AUDIENCES) {
    const input = patch[audience];
    if (input) next[audience] = audienceSetting(audience, input, 'inherit');
  }
  await repo.updateOrganizationInvites(tx, organizationId, next);
  return presentOrganizationInvites(next);
}
