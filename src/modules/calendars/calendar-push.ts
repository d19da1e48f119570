// Push from Google and Microsoft: a channel per selected calendar, opened after a successful sync and
// opened again a day before it ends. A notification makes the calendar due at once (a sync job, at most
// one per calendar every few seconds); with a live channel the calendar is otherwise read only every
// SVC_CALENDAR_PUSH_POLL_MS, in case a notification is lost. Notifications carry the channel's id and its
// token; svc keeps only the token's hash, and anything that does not match a live channel changes nothing.
// A channel that stops early is replaced: Graph says so (lifecycle notifications); Google does not, so a
// poll that finds changes no notification announced takes the channel for silent. A provider that
// refuses a channel is asked again only after PUSH_RETRY_AFTER_MS.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { insertJobs } from '../../jobs/jobs.repository.js';
import type { PushChannel } from '../../integrations/calendar-types.js';
import { CALENDAR_SYNC_JOB, type CalendarSyncDeps, outboundPolicy } from './calendar-sync.js';
import * as pushRepo from './calendar-push.repository.js';
import * as repo from './calendars.repository.js';

export const PUSH_PATH_NAMES = { google_calendar: 'google', office365_calendar: 'office365' } as const;
type PushType = keyof typeof PUSH_PATH_NAMES;

/** A channel is opened again when it has less than this left. */
const RENEW_BEFORE_MS = 24 * 3_600_000;
/** What svc asks for (Google may give less; Graph caps events subscriptions at 4,230 minutes). */
const CHANNEL_LIFETIME_MS = 7 * 24 * 3_600_000;
/** Notifications of one calendar make one sync per this span at most. */
const PUSH_SYNC_SPACING_MS = 5_000;
/** After a refusal, the calendar is polled and no channel asked for during this long. */
export const PUSH_RETRY_AFTER_MS = 6 * 3_600_000;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const isPushType = (type: string): type is PushType => type in PUSH_PATH_NAMES;

/** A connection's opened credentials, and what a provider call with them needs. */
function openConnection(deps: CalendarSyncDeps, connection: repo.CalendarConnectionRow) {
  return {
    credentials: JSON.parse(deps.secrets.open(connection.credentialsSealed)) as unknown,
    context: {
      policy: outboundPolicy(deps.config),
      saveCredentials: async (renewed: unknown) => repo.saveCredentials(deps.database.db, connection.id, deps.secrets.seal(JSON.stringify(renewed))),
    },
  };
}

/** The address a provider POSTs to for this kind of connection. */
export const notificationAddress = (pushUrl: string, type: PushType) => `${pushUrl}/v2/calendars/${PUSH_PATH_NAMES[type]}/notifications`;

/**
 * After a successful sync: makes sure the calendar has a channel with a day or more left (opening one and
 * ending the old), and answers when the calendar is next to be read. Without push (no address
 * configured, a provider without it, or the provider refusing) the poll interval stands. `silent`: the
 * sync found changes no notification had announced, so the live channel is replaced too.
 */
export async function ensurePushChannel(
  deps: CalendarSyncDeps,
  found: { source: repo.CalendarSourceRow; connection: repo.CalendarConnectionRow },
  now: number,
  { silent = false }: { silent?: boolean } = {},
): Promise<number> {
  const { calendars } = deps.config;
  const { source, connection } = found;
  const reader = deps.readers[connection.type];
  if (!calendars.pushUrl || !isPushType(connection.type) || !reader?.watch) return now + calendars.pollMs;
  const channels = await pushRepo.listPushChannels(deps.database.db, source.id);
  const live = channels.filter((channel) => !channel.renew && channel.expiresAt.getTime() - now > RENEW_BEFORE_MS);
  if (live.length > 0 && !silent) return now + calendars.pushPollMs;
  if (live.length > 0) deps.log?.warn?.({ calendarSourceId: source.id }, 'calendar push channel silent (a poll found changes no notification announced): opened again');
  if (source.pushRetryAt && source.pushRetryAt.getTime() > now) return now + calendars.pollMs;
  const { credentials, context } = openConnection(deps, connection);
  const token = randomBytes(32).toString('base64url');
  const request = { id: randomUUID(), address: notificationAddress(calendars.pushUrl, connection.type), token, expiresAt: now + CHANNEL_LIFETIME_MS };
  // Stored before it is asked for: Google's first notification can arrive before its answer does.
  const pending = await pushRepo.insertPushChannel(deps.database.db, { sourceId: source.id, channelId: request.id, resourceId: null, tokenHash: hashOf(token), expiresAt: new Date(request.expiresAt) });
  let opened: PushChannel;
  try {
    opened = await reader.watch(credentials, source.externalId, request, context);
  } catch (error) {
    await pushRepo.deletePushChannel(deps.database.db, pending);
    await pushRepo.setPushRetryAt(deps.database.db, source.id, new Date(now + PUSH_RETRY_AFTER_MS));
    deps.log?.warn?.({ calendarSourceId: source.id, err: error instanceof Error ? error.message : String(error) }, 'calendar push channel not opened: polled instead');
    // A channel it was to replace stays while it lasts, but is not trusted to announce every change.
    return now + calendars.pollMs;
  }
  await pushRepo.confirmPushChannel(deps.database.db, pending, { channelId: opened.id, resourceId: opened.resourceId, expiresAt: new Date(opened.expiresAt) });
  if (source.pushRetryAt) await pushRepo.setPushRetryAt(deps.database.db, source.id, null);
  // The channels it replaces are ended (best effort: an old one left running only sends notifications svc ignores).
  for (const old of channels) {
    await pushRepo.deletePushChannel(deps.database.db, old.id);
    await reader.stopWatching?.(credentials, { id: old.channelId, resourceId: old.resourceId, expiresAt: old.expiresAt.getTime() }, context).catch(() => {});
  }
  return opened.expiresAt - now > RENEW_BEFORE_MS ? now + calendars.pushPollMs : now + calendars.pollMs;
}

/**
 * A notification naming `channelId` with `token`: when they match a live channel of a selected calendar,
 * a sync of it is queued. Answers whether they matched.
 */
export async function receivePushNotification(
  deps: Pick<CalendarSyncDeps, 'database'>,
  type: PushType,
  notification: { channelId: string; token: string; handshake?: boolean; lifecycle?: string | undefined },
  now: number,
): Promise<boolean> {
  const channel = await pushRepo.findPushChannel(deps.database.db, notification.channelId);
  if (!channel || channel.type !== type || channel.expiresAt.getTime() <= now) return false;
  const presented = Buffer.from(hashOf(notification.token), 'hex');
  if (!timingSafeEqual(presented, Buffer.from(channel.tokenHash, 'hex'))) return false;
  // Google's first message only says the channel works: the calendar has just been read.
  if (notification.handshake) return true;
  // Graph's lifecycle notifications: a removed subscription is gone (the sync opens another), one to
  // authorize again is replaced at the sync; after either, and after `missed`, the calendar is read.
  if (notification.lifecycle === 'subscriptionRemoved') await pushRepo.deletePushChannel(deps.database.db, channel.id);
  if (notification.lifecycle === 'reauthorizationRequired') await pushRepo.markPushChannelForRenewal(deps.database.db, channel.id);
  // One sync per calendar and span, run when the span has closed: a notification cannot arrive after
  // the sync meant to cover it has read the calendar (a second later, for clocks a little apart).
  const span = Math.floor(now / PUSH_SYNC_SPACING_MS);
  await insertJobs(deps.database.db, [
    {
      kind: CALENDAR_SYNC_JOB,
      payload: { sourceId: channel.sourceId },
      runAt: new Date((span + 1) * PUSH_SYNC_SPACING_MS + 1000),
      maxAttempts: 1,
      dedupeKey: `${CALENDAR_SYNC_JOB}:${channel.sourceId}#push${span}`,
    },
  ]);
  return true;
}

/**
 * Ends the channels of a connection's calendars (of `sourceIds` only, when given) before they are
 * deselected or disconnected: best effort, since a channel left open only sends notifications svc
 * ignores until it ends.
 */
export async function stopPushChannels(deps: CalendarSyncDeps, connection: repo.CalendarConnectionRow, sourceIds?: readonly number[]): Promise<void> {
  const reader = deps.readers[connection.type];
  const channels = await pushRepo.listPushChannelsOfConnection(deps.database.db, connection.id, sourceIds);
  if (channels.length === 0) return;
  const { credentials, context } = openConnection(deps, connection);
  for (const channel of channels) {
    await reader?.stopWatching?.(credentials, { id: channel.channelId, resourceId: channel.resourceId, expiresAt: channel.expiresAt.getTime() }, context).catch(() => {});
    await pushRepo.deletePushChannel(deps.database.db, channel.id);
  }
}
