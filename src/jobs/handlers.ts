import type { AppContext } from '../app/context.js';
import { lazySecretBox } from '../lib/secrets.js';
import { createMailSender, MAIL_SEND_JOB } from '../modules/mail/mail-sender.js';
import type { InfoLog } from '../modules/mail/mail-transport.js';
import { cleanUpExpiredKeys, IDEMPOTENCY_CLEANUP_JOB } from '../modules/idempotency/idempotency.service.js';
import { createWebhookDeliverer, WEBHOOK_DELIVERY_JOB } from '../modules/webhooks/webhook-delivery.js';
import { bookingWebhooks, fanOutBookingEvent, WEBHOOK_FANOUT_JOB } from '../modules/webhooks/webhook-emission.js';
import { MEETING_JOB, runMeetingJob } from '../modules/webhooks/webhook-meetings.js';
import { CALENDAR_WRITE_JOB, writeCalendarEvents } from '../modules/calendars/calendar-events.js';
import { calendarReaders, calendarWriters } from '../modules/calendars/calendar-oauth.js';
import { CALENDAR_SWEEP_JOB, CALENDAR_SYNC_JOB, calendarSweep, sweepDueCalendars, syncCalendarSource } from '../modules/calendars/calendar-sync.js';
import { DELEGATION_PROVISION_JOB, provisionDelegatedCalendars, queueDelegationProvisioning } from '../modules/calendars/delegation-credentials.service.js';
import { BOOKING_MEETING_JOB, runBookingMeetingJob } from '../modules/conferencing/booking-meetings.service.js';
import { DAILY_EVENT_JOB, runDailyEventJob } from '../modules/conferencing/daily-events.service.js';
import { runNoShowJob } from '../modules/conferencing/video-no-shows.service.js';
import { NO_SHOW_JOB } from '../modules/webhooks/webhook-no-shows.js';
import { FORM_NO_EVENT_JOB, runNoEventJob } from '../modules/routing-forms/routing-form-webhooks.js';
import { bookingEventListener } from '../app/booking-event-listener.js';
import { createTextSender } from '../modules/text-messages/text-message-sender.js';
import { TEXT_SEND_JOB } from '../modules/text-messages/text-messages.repository.js';
import { runWorkflowActivation } from '../modules/workflows/workflow-activation.js';
import { WORKFLOW_DUE_JOB, WORKFLOW_SEND_JOB } from '../modules/workflows/workflow-reminders.repository.js';
import { createWorkflowDueSender, createWorkflowSender } from '../modules/workflows/workflow-sender.js';
import { WORKFLOW_ACTIVATE_JOB } from '../modules/workflows/workflows.service.js';
import { createExpireSessionHandler, createRefundHandler, createReleaseHandler } from '../modules/payments/payment-jobs.js';
import { PAYMENT_EXPIRE_SESSION_JOB, PAYMENT_REFUND_JOB, PAYMENT_RELEASE_JOB } from '../modules/payments/payments.repository.js';
import { HOUSEKEEPING, runHousekeeping } from './housekeeping.js';
import { JobRegistry } from './runner.js';

/**
 * Every job kind svc knows, by module, with the runner settings of the process's config. Modules that
 * enqueue work (webhook deliveries, emails, meeting start/end) add their handler here.
 */
export function jobHandlers(ctx: Pick<AppContext, 'config' | 'database'> & Partial<Pick<AppContext, 'secrets' | 'changes'>> & { log?: InfoLog }): JobRegistry {
  const { config, database, log } = ctx;
  // `svc worker` has no app context: it opens secrets with the same key `svc serve` would.
  const secrets = ctx.secrets ?? lazySecretBox(config.encryptionKey, config.dataDir);
  const deliver = createWebhookDeliverer({ database, secrets, config, ...(log ? { log } : {}) });
  const mail = createMailSender({ database, config, secrets, ...(log ? { log } : {}) });
  const calendarSync = { database, secrets, config, readers: calendarReaders(config), log, clock: () => config.fixedNow ?? Date.now(), changes: ctx.changes };
  const calendarWrites = { database, secrets, config, writers: calendarWriters(config), log };
  const meetings = { database, secrets, config, listener: bookingEventListener, log, calendarWrites };
  const payments = { database, stripe: config.payments.stripe, listener: bookingEventListener, changes: ctx.changes, log };
  return new JobRegistry(
    [
      [HOUSEKEEPING.kind, async () => void (await runHousekeeping(database.db, config.jobs, new Date(), { refreshStatistics: database.kind === 'pglite' }))],
      // Queued by earlier versions (one per hour of idempotent requests); housekeeping does this now.
      [IDEMPOTENCY_CLEANUP_JOB, () => cleanUpExpiredKeys(database.db, new Date())],
      [WEBHOOK_FANOUT_JOB, (payload) => fanOutBookingEvent(database, payload)],
      [WEBHOOK_DELIVERY_JOB, deliver],
      [MEETING_JOB, (payload) => runMeetingJob(database, bookingWebhooks, payload)],
      [MAIL_SEND_JOB, mail.handler],
      [
        CALENDAR_SWEEP_JOB,
        async () => {
          await sweepDueCalendars(database, new Date());
          await queueDelegationProvisioning({ database }, new Date());
        },
      ],
      [DELEGATION_PROVISION_JOB, async (payload: { credentialId: string }) => void (await provisionDelegatedCalendars(calendarSync, payload.credentialId))],
      [CALENDAR_SYNC_JOB, async (payload: { sourceId: number; poll?: boolean }) => void (await syncCalendarSource(calendarSync, payload.sourceId, Date.now(), { poll: payload.poll === true }))],
      [CALENDAR_WRITE_JOB, async (payload: { icsUid: string }) => void (await writeCalendarEvents(calendarWrites, payload.icsUid))],
      [BOOKING_MEETING_JOB, (payload, job) => runBookingMeetingJob(meetings, payload, job)],
      [DAILY_EVENT_JOB, (payload) => runDailyEventJob({ database, config, listener: bookingEventListener }, payload)],
      [NO_SHOW_JOB, (payload) => runNoShowJob({ database, config }, payload)],
      [FORM_NO_EVENT_JOB, (payload) => runNoEventJob(database, payload)],
      [WORKFLOW_ACTIVATE_JOB, (payload) => runWorkflowActivation(database, payload)],
      [WORKFLOW_SEND_JOB, createWorkflowSender({ database, appUrl: config.appUrl, config })],
      [WORKFLOW_DUE_JOB, createWorkflowDueSender({ database, appUrl: config.appUrl, config })],
      [TEXT_SEND_JOB, createTextSender({ database, twilio: config.twilio, secrets, ...(log ? { log } : {}) })],
      [PAYMENT_RELEASE_JOB, createReleaseHandler(payments)],
      [PAYMENT_EXPIRE_SESSION_JOB, createExpireSessionHandler(payments)],
      [PAYMENT_REFUND_JOB, createRefundHandler(payments)],
    ],
    { retryBaseMs: config.jobs.retryBaseMs, leaseMs: config.jobs.leaseMs, concurrency: config.jobs.concurrency },
    [HOUSEKEEPING, calendarSweep(config.calendars)],
    [mail.close],
  );
}
