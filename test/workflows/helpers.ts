// An organization team with one host (UTC, 09:00-17:00) and its event types, bookings by an attendee in
// Kathmandu, and the reminders workflows scheduled for them, for the workflow tests.
import assert from 'node:assert/strict';
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { jobs } from '../../src/db/schema.js';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { acceptMembership, createOrganization, type Member } from '../support/tenancy.js';
import type { TestApp } from '../support/test-app.js';

export const ATTENDEE_PHONE = '+9779841234567';

export interface WorkflowTeam {
  orgId: number;
  owner: Member;
  host: Member;
  teamId: number;
  /** Event types of the team by slug. */
  eventTypeIds: Record<string, number>;
  workflows: string;
}

/** `locations`: the event types' (default an address; null: svc's default, the built-in video). */
export async function setUpWorkflowTeam(api: TestApp, slugs: string[], locations: unknown[] | null = [{ type: 'address', address: 'Rue de la Paix 1, Paris', public: true }]): Promise<WorkflowTeam> {
  const made = await createOrganization(api);
  const orgId = made.organization.id;
  const owner = made.owner;
  const admin = (method: string, url: string, body: unknown) => api.request(method, url, { key: owner.apiKey, body });
  const team = await admin('POST', `/v2/organizations/${orgId}/teams`, { name: 'Care' });
  assert.equal(team.status, 201, team.text);
  const teamId: number = team.body.data.id;
  const host = await api.createUser({ timeZone: 'UTC', name: 'Dr Host' });
  for (const path of [`/v2/organizations/${orgId}/memberships`, `/v2/organizations/${orgId}/teams/${teamId}/memberships`]) {
    const joined = await admin('POST', path, { userId: host.user.id, role: 'MEMBER', accepted: true });
    assert.equal(joined.status, 201, joined.text);
    if (!joined.body.data.accepted) await acceptMembership(api, host, `${path}/${joined.body.data.id}`);
  }
  const eventTypeIds: Record<string, number> = {};
  for (const slug of slugs) {
    const created = await admin('POST', `/v2/organizations/${orgId}/teams/${teamId}/event-types`, {
      title: 'Consultation',
      slug,
      lengthInMinutes: 30,
      minimumBookingNotice: 0,
      schedulingType: 'COLLECTIVE',
      hosts: [{ userId: host.user.id }],
      ...(locations ? { locations } : {}),
    });
    assert.equal(created.status, 201, created.text);
    eventTypeIds[slug] = created.body.data.id;
  }
  return { orgId, owner, host, teamId, eventTypeIds, workflows: `/v2/organizations/${orgId}/teams/${teamId}/workflows` };
}

export async function bookAsAttendee(api: TestApp, eventTypeId: number, start: string, attendee: Record<string, unknown> = {}) {
  const response = await api.request('POST', '/v2/bookings', {
    version: BOOKINGS_VERSION,
    body: {
      eventTypeId,
      start,
      attendee: { name: 'Asha Rai', email: `asha-${Math.random().toString(36).slice(2, 8)}@example.com`, timeZone: 'Asia/Kathmandu', language: 'de', phoneNumber: ATTENDEE_PHONE, ...attendee },
    },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.data as { uid: string; attendees: { email: string }[] };
}

const rowsOf = async <T>(db: Db, query: SQL) => ((await db.execute(query)) as unknown as { rows: T[] }).rows;

export interface ReminderRow {
  id: number;
  channel: string;
  recipient_address: string;
  scheduled_at: string;
  status: string;
}

export const remindersOfBooking = (db: Db, bookingUid: string) =>
  rowsOf<ReminderRow>(
    db,
    sql`select r.id, r.channel, r.recipient_address, r.scheduled_at, r.status from workflow_reminders r join bookings b on b.id = r.booking_id
      where b.uid = ${bookingUid} order by r.scheduled_at, r.channel, r.recipient_address`,
  );

export interface DueJobRow {
  id: number;
  workflow_id: number;
  run_at: string;
  status: string;
}

/** The booking's workflow.due jobs (what its workflows owe it, and when), by time then workflow. */
export const dueJobsOf = (db: Db, bookingUid: string) =>
  rowsOf<DueJobRow>(
    db,
    sql`select j.id, (j.payload->>'workflowId')::int as workflow_id, j.run_at, j.status from jobs j
      where j.kind = 'workflow.due' and (j.payload->>'bookingId')::int = (select id from bookings where uid = ${bookingUid})
      order by j.run_at, (j.payload->>'workflowId')::int`,
  );

/** A clock reaching the booking's workflow times: its pending workflow.due jobs made due now. */
export async function reachDueJobs(db: Db, bookingUids: string[]): Promise<void> {
  for (const uid of bookingUids) {
    await db.execute(sql`update jobs set run_at = now() where kind = 'workflow.due' and status = 'pending'
      and (payload->>'bookingId')::int = (select id from bookings where uid = ${uid})`);
  }
  await db.execute(sql`select pg_notify('svc_jobs', '')`);
}

/** Whether every workflow.due job of these bookings has run. */
export async function dueJobsDone(db: Db, bookingUids: string[]): Promise<boolean> {
  for (const uid of bookingUids) if ((await dueJobsOf(db, uid)).some((job) => job.status === 'pending')) return false;
  return true;
}

/** A clock reaching these reminders: their send jobs made due now. */
export async function reachReminders(db: Db, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(jobs)
    .set({ runAt: sql`now()` })
    .where(sql`${jobs.kind} = 'workflow.send' and (${jobs.payload}->>'reminderId')::bigint in (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`);
  await db.execute(sql`select pg_notify('svc_jobs', '')`);
}

/** A reminder step of the tests: email to the attendees, with the event attached. */
export const attendeeEmailStep = (overrides: Record<string, unknown> = {}) => ({
  stepNumber: 1,
  action: 'email_attendee',
  recipient: 'attendee',
  template: 'custom',
  sender: 'Acme Scheduling',
  includeCalendarEvent: true,
  message: {
    subject: 'Reminder: {EVENT_NAME} on {EVENT_DATE_ddd, MMM D, YYYY h:mma}',
    html: '<p>Hello {ATTENDEE}, {ORGANIZER} meets you at {START_TIME_h:mma} {TIMEZONE} ({LOCATION}) {MEETING_URL}.</p><script>alert(1)</script><p>Cancel: {CANCEL_URL}</p>',
  },
  ...overrides,
});

export const attendeeSmsStep = { stepNumber: 2, action: 'sms_attendee', recipient: 'attendee', template: 'reminder', sender: 'Acme', message: { subject: '', text: '{EVENT_NAME} at {START_TIME_HH:mm} ({TIMEZONE})' } };
