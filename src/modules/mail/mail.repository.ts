import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type MailRecipientRole, mailAttempts, mailMessages } from '../../db/schema.js';
import type { EventTypeEmailSettings } from '../../db/schema/scheduling.js';
import type { StoredBookingField } from '../event-types/event-type-model.js';
import type { CalendarInvites } from '../event-types/event-type-model.js';
import type { OrganizationCalendarInvites } from '../../db/schema/teams.js';
import { JOBS_CHANNEL } from '../../jobs/jobs.repository.js';
import { WRITABLE_TYPES_SQL } from '../calendars/calendar-events.repository.js';

export type MailMessageRow = typeof mailMessages.$inferSelect;
export type NewMailMessage = Pick<
  typeof mailMessages.$inferInsert,
  'uid' | 'bookingEventId' | 'kind' | 'recipientEmail' | 'recipientName' | 'recipientRole' | 'recipientTimeZone' | 'recipientLocale' | 'method' | 'sequence' | 'subject' | 'textBody' | 'htmlBody' | 'bodySealed' | 'invitationIcs' | 'senderName'
>;

/** A user a booking's mail may go to. */
export interface MailUser {
  id: number;
  name: string | null;
  email: string;
  timeZone: string;
  locale: string | null;
  /** Holds the booking's time (organizer or co-host), not only named by the change (a previous host). */
  hosts: boolean;
}

export interface BookingMailAudience {
  users: MailUser[];
  emailSettings: EventTypeEmailSettings | null;
  /** The managing OAuth client's `areEmailsEnabled` when the organizer is a managed user; null otherwise. */
  platformEmailsEnabled: boolean | null;
  /** The booking's SEQUENCE after this change (bumped by this statement when `bump`). */
  sequence: number;
}

/** The booking a change mails about, as the audience query needs it. */
export interface AudienceBooking {
  id: number;
  userId: number;
  eventTypeId: number | null;
  icsSequence: number;
}

/**
 * The part of a statement that reads a booking change's mail audience: `bump`, a data-modifying CTE
 * raising the booking's SEQUENCE when the change revises the event (it belongs in the statement's
 * WITH), and `audience`, one json value with the users the change may mail (its hosts, and
 * `alsoUserIds` such as a previous host), the event type's email settings, the platform client's
 * switch and the bumped sequence. `loadBookingMailAudience` runs it alone; a booking event's insert
 * runs it alongside (one round trip for both).
 */
export function bookingMailAudienceQuery(booking: AudienceBooking, alsoUserIds: readonly number[], bump: boolean): { bump: SQL; audience: SQL } {
  const also = alsoUserIds.length ? sql.join(alsoUserIds.map((id) => sql`${id}::int`), sql`, `) : sql`null::int`;
  return {
    bump: sql`mail_bumped as (update bookings set ics_sequence = ics_sequence + 1 where id = ${booking.id} and ${bump}::boolean returning ics_sequence)`,
    audience: sql`json_build_object(
      'users', (select coalesce(json_agg(json_build_object('id', u.id, 'name', u.name, 'email', u.email, 'timeZone', u.time_zone, 'locale', u.locale,
          'hosts', u.id in (select user_id from booking_hosts where booking_id = ${booking.id})) order by u.id = ${booking.userId} desc, u.id), '[]'::json)
        from users u
        where u.id in (select user_id from booking_hosts where booking_id = ${booking.id}) or u.id in (${also}) or u.id = ${booking.userId}),
      'bumpedSequence', (select ics_sequence from mail_bumped),
      'platformEmailsEnabled', (select c.are_emails_enabled from platform_managed_users pm join platform_oauth_clients c on c.id = pm.client_id where pm.user_id = ${booking.userId}),
      'emailSettings', (select email_settings from event_types where id = ${booking.eventTypeId ?? -1}))`,
  };
}

/** The audience a `bookingMailAudienceQuery` read (its json, parsed or not). */
export function parseMailAudience(value: unknown, booking: AudienceBooking): BookingMailAudience {
  const read = (typeof value === 'string' ? JSON.parse(value) : value) as {
    users: MailUser[];
    bumpedSequence: number | null;
    platformEmailsEnabled: boolean | null;
    emailSettings: EventTypeEmailSettings | null;
  };
  return {
    users: read.users.map((user) => ({ ...user, locale: user.locale ?? null, hosts: user.hosts === true })),
    emailSettings: read.emailSettings ?? null,
    platformEmailsEnabled: read.platformEmailsEnabled ?? null,
    sequence: read.bumpedSequence ?? booking.icsSequence,
  };
}

/** A booking change's mail audience, read (and its SEQUENCE bumped when `bump`) in one statement. */
export async function loadBookingMailAudience(db: Db, booking: AudienceBooking, alsoUserIds: readonly number[], bump: boolean): Promise<BookingMailAudience> {
  const query = bookingMailAudienceQuery(booking, alsoUserIds, bump);
  const result = await db.execute(sql`with ${query.bump} select ${query.audience} as audience`);
  return parseMailAudience((result as unknown as { rows: { audience: unknown }[] }).rows[0]!.audience, booking);
}

/**
 * Writes messages and one send job each (payload `{messageId}`), and wakes the workers once the
 * transaction commits: one statement, inside the caller's transaction. `rider`: other writes of the
 * change (data-modifying CTEs) run by the same statement. Returns whether it ran (with no messages, the
 * rider is left to the caller).
 */
export async function insertMailMessages(db: Db, messages: NewMailMessage[], jobKind: string, maxAttempts: number, rider: SQL | null = null): Promise<boolean> {
  if (messages.length === 0) return false;
  const rows = messages.map(
    (m) =>
      sql`(${m.uid}::text, ${m.bookingEventId ?? null}::bigint, ${m.kind}::text, ${m.recipientEmail}::text, ${m.recipientName ?? null}::text, ${m.recipientRole}::text, ${m.recipientTimeZone}::text, ${m.recipientLocale ?? null}::text, ${m.method ?? null}::text, ${m.sequence ?? 0}::int, ${m.subject ?? null}::text, ${m.textBody ?? null}::text, ${m.htmlBody ?? null}::text, ${m.bodySealed ?? false}::boolean, ${m.invitationIcs ?? null}::text, ${m.senderName ?? null}::text)`,
  );
  await db.execute(sql`
    with ${rider ? sql`${rider}, ` : sql``}message (uid, booking_event_id, kind, recipient_email, recipient_name, recipient_role, recipient_time_zone, recipient_locale, method, sequence, subject, text_body, html_body, body_sealed, invitation_ics, sender_name) as (values ${sql.join(rows, sql`, `)}),
    inserted as (
      insert into ${mailMessages} (uid, booking_event_id, kind, recipient_email, recipient_name, recipient_role, recipient_time_zone, recipient_locale, method, sequence, subject, text_body, html_body, body_sealed, invitation_ics, sender_name)
      select * from message returning id
    ), queued as (
      insert into jobs (kind, payload, max_attempts) select ${jobKind}, jsonb_build_object('messageId', id), ${maxAttempts} from inserted returning id
    )
    select pg_notify(${JOBS_CHANNEL}, '') from (select count(*) from queued) done`);
  return true;
}

/** A message with the booking event it tells of (the booking as that change left it), if it has one. */
export interface MessageToSend extends MailMessageRow {
  trigger: string | null;
  payload: Record<string, unknown> | null;
}

export async function findMessagesToSend(db: Db, ids: number[]): Promise<MessageToSend[]> {
  if (ids.length === 0) return [];
  const result = await db.execute(sql`
    select m.id, m.uid, m.booking_event_id as "bookingEventId", m.kind, m.recipient_email as "recipientEmail", m.recipient_name as "recipientName",
      m.recipient_role as "recipientRole", m.recipient_time_zone as "recipientTimeZone", m.recipient_locale as "recipientLocale", m.method, m.sequence,
      m.subject, m.text_body as "textBody", m.html_body as "htmlBody", m.body_sealed as "bodySealed", m.invitation_ics as "invitationIcs", m.sender_name as "senderName", m.status, m.attempts, m.last_error as "lastError", m.created_at as "createdAt", m.sent_at as "sentAt", e.trigger, e.payload
    from ${mailMessages} m left join booking_events e on e.id = m.booking_event_id
    where m.id in (${sql.join(ids.map((id) => sql`${id}::bigint`), sql`, `)})`);
  return (result as unknown as { rows: MessageToSend[] }).rows.map((row) => ({ ...row, id: Number(row.id), createdAt: new Date(row.createdAt) }));
}

/** What the description of a booking's invitations is made from (spec 2.9), read when a message is sent. */
export interface InviteContext {
  eventTypeTitle: string | null;
  bookingFields: StoredBookingField[];
  /** The event type's settings (a managed child's: its parent's). */
  invites: CalendarInvites | null;
  /** The default of the organization the event type (or, for a personal one, its organizer) belongs to. */
  organizationInvites: OrganizationCalendarInvites | null;
  /** The booking's hosts other than the organizer, as the invitation lists them. */
  coHosts: { name: string | null; email: string }[];
  /** A seated event type that does not show attendees to each other: a seat's invitation lists only its holder. */
  hideOtherSeats: boolean;
  /** The booker's notes stay out of the hosts' calendar events. */
  hideCalendarNotes: boolean;
  /** The hosts' calendar events are private (details hidden from those the calendar is shared with). */
  hideCalendarEventDetails: boolean;
  /** The event type's private note (privateNoteEnabled): its template, '' for the default; null when off. */
  privateNote: string | null;
  /**
   * useDestinationCalendarEmail: the address of the account holding the organizer's destination calendar
   * (the event type's, else theirs, else their first writable connection's), shown as the organizer's;
   * null: the organizer's own.
   */
  organizerAddress: string | null;
}

/**
 * The account address of the calendar svc writes the organizer's events into, chosen as
 * calendar-events.ts's destinationOf chooses (the event type's destination, else the user's, which must
 * be valid; else the first valid connection's primary writable calendar). Null when there is none or its
 * account has no recorded address: never another connection's.
 */
function writtenCalendarAccountAddress(organizerId: number): SQL {
  return sql`select case when w.chosen then w.account_email end from (
      (select not c.invalid as chosen, c.account_email, 0 as rank from destination_calendars d
        join calendar_sources s on s.id = d.source_id join calendar_connections c on c.id = s.connection_id
        where d.user_id = ${organizerId} and (d.event_type_id = et.id or d.event_type_id is null)
        order by d.event_type_id is null limit 1)
      union all
      (select true, c.account_email, 1 from calendar_sources s join calendar_connections c on c.id = s.connection_id
        where s.user_id = ${organizerId} and not c.invalid and c.type in (${WRITABLE_TYPES_SQL}) and not s.read_only
        order by s.is_primary desc, c.id, s.id limit 1)
    ) w order by w.rank limit 1`;
}

export async function loadInviteContext(db: Db, booking: { id: number; eventTypeId: number | null; organizerId: number }): Promise<InviteContext> {
  const result = await db.execute(sql`
    select et.title as "eventTypeTitle", et.booking_fields as "bookingFields",
      coalesce(et.seats_per_time_slot is not null and not et.seats_show_attendees, false) as "hideOtherSeats",
      coalesce((et.settings ->> 'hideCalendarNotes')::boolean, false) as "hideCalendarNotes",
      coalesce((et.settings ->> 'hideCalendarEventDetails')::boolean, false) as "hideCalendarEventDetails",
      case when (et.settings ->> 'privateNoteEnabled')::boolean then coalesce(et.settings ->> 'privateNoteTemplate', '') end as "privateNote",
      case when (et.settings ->> 'useDestinationCalendarEmail')::boolean then (${writtenCalendarAccountAddress(booking.organizerId)}) end as "organizerAddress",
      case when et.parent_id is null then et.calendar_invites else parent.calendar_invites end as invites,
      (select o.calendar_invites from teams o where o.is_organization and o.id = coalesce(
        (select case when t.is_organization then t.id else t.parent_id end from teams t where t.id = coalesce(et.team_id, parent.team_id)),
        (select u.organization_id from users u where u.id = ${booking.organizerId}))) as "organizationInvites",
      (select coalesce(json_agg(json_build_object('name', u.name, 'email', u.email) order by u.id), '[]'::json)
        from booking_hosts bh join users u on u.id = bh.user_id where bh.booking_id = ${booking.id} and bh.user_id <> ${booking.organizerId}) as "coHosts"
    from (select 1) one
    left join event_types et on et.id = ${booking.eventTypeId ?? -1}
    left join event_types parent on parent.id = et.parent_id`);
  const row = (result as unknown as { rows: Record<string, any>[] }).rows[0] ?? {};
  return {
    eventTypeTitle: row.eventTypeTitle ?? null,
    bookingFields: row.bookingFields ?? [],
    invites: row.invites ?? null,
    organizationInvites: row.organizationInvites ?? null,
    coHosts: typeof row.coHosts === 'string' ? JSON.parse(row.coHosts) : (row.coHosts ?? []),
    hideOtherSeats: row.hideOtherSeats === true,
    hideCalendarNotes: row.hideCalendarNotes === true,
    hideCalendarEventDetails: row.hideCalendarEventDetails === true,
    privateNote: typeof row.privateNote === 'string' ? row.privateNote : null,
    organizerAddress: typeof row.organizerAddress === 'string' ? row.organizerAddress : null,
  };
}

export interface MailAttemptRecord {
  messageId: number;
  attemptedAt: Date;
  durationMs: number;
  error: string | null;
  response: string | null;
  outcome: 'sent' | 'failed' | 'pending';
}

/** Logs attempts and moves their messages on, one statement for many. */
export async function recordMailAttempts(db: Db, attempts: MailAttemptRecord[]): Promise<void> {
  if (attempts.length === 0) return;
  const rows = attempts.map(
    (a) =>
      sql`(${a.messageId}::bigint, ${a.attemptedAt.toISOString()}::timestamptz, ${a.durationMs}::int, ${a.error}::text, ${a.response}::text, ${a.outcome}::text)`,
  );
  await db.execute(sql`
    with attempt (message_id, attempted_at, duration_ms, error, response, outcome) as (values ${sql.join(rows, sql`, `)}),
    logged as (
      insert into ${mailAttempts} (message_id, attempted_at, duration_ms, error, response)
      select attempt.message_id, attempt.attempted_at, attempt.duration_ms, attempt.error, attempt.response
      from attempt join ${mailMessages} on ${mailMessages.id} = attempt.message_id
    )
    update ${mailMessages}
    set attempts = ${mailMessages.attempts} + 1, last_error = attempt.error, status = attempt.outcome,
        sent_at = case when attempt.outcome = 'sent' then attempt.attempted_at else ${mailMessages.sentAt} end
    from attempt
    where ${mailMessages.id} = attempt.message_id`);
}

/** Sent and failed messages made before `createdBefore`, with their attempts: up to `limit`, oldest first. */
export async function deleteEndedMessages(db: Db, createdBefore: Date, limit: number): Promise<number> {
  const result = await db.execute(sql`
    delete from ${mailMessages} where id in (
      select id from ${mailMessages} where status <> 'pending' and created_at < ${createdBefore.toISOString()}::timestamptz order by id limit ${limit}
    ) returning id`);
  return (result as unknown as { rows: unknown[] }).rows.length;
}

export type { MailRecipientRole };
