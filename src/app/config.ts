import path from 'node:path';
import type { TwilioConfig } from '../integrations/twilio/client.js';
import { ConfigError } from './config-error.js';
import { twilioConfig } from './twilio-config.js';
import { type PaymentsConfig, paymentsConfig } from './stripe-config.js';
import { type DailyConfig, dailyConfig } from './daily-config.js';
import { int, parseHttpUrl } from './config-values.js';
import { parseEncryptionKey } from '../lib/secrets.js';
import { GOOGLE_ENDPOINTS } from '../integrations/google/index.js';
import { MICROSOFT_ENDPOINTS } from '../integrations/microsoft/index.js';
import { ZOOM_ENDPOINTS } from '../integrations/zoom/oauth.js';

/** Everything the process reads from its environment, parsed once at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** PostgreSQL connections one process keeps open at most (each request's transaction holds one). */
  databasePoolSize: number;
  logLevel: string;
  adminApiKey: string | undefined;
  adminEmail: string;
  bodyLimitBytes: number;
  redisUrl: string | undefined;
  rateLimit: RateLimitConfig;
  authCacheTtlMs: number;
  shutdownTimeoutMs: number;
  appUrl: string;
  /** Base URL of the Jitsi Meet server whose rooms the built-in video app (svc-video) hands out. */
  videoUrl: string;
  /** Origins whose pages may show svc's booking pages in a frame (SVC_EMBED_ORIGINS); none by default. */
  embedOrigins: string[];
  /** Key sealing stored secrets; required with DATABASE_URL; undefined: generated into the data dir on first use. */
  encryptionKey: Buffer | undefined;
  /** Webhook subscribers on loopback, private or link-local addresses are refused unless this is set. */
  allowPrivateWebhooks: boolean;
  /** The longest a webhook delivery attempt may take (connect, send, answer) before it counts as failed. */
  webhookTimeoutMs: number;
  jobs: JobsConfig;
  /** SVC_NOW: the API's clock stays at this instant (epoch ms); undefined: the real clock. */
  fixedNow: number | undefined;
  mail: MailConfig;
  login: LoginLimits;
  mailLimits: MailLimits;
  calendars: CalendarsConfig;
  /** svc's app at Zoom (SVC_ZOOM_CLIENT_ID / _SECRET); null: Zoom cannot be connected. Microsoft Teams uses the Microsoft app of `calendars`. */
  zoom: OAuthAppConfig | null;
  /** Daily for the built-in video (SVC_DAILY_API_KEY); null: the built-in video is Jitsi Meet rooms on videoUrl. */
  daily: DailyConfig | null;
  /** SMS and WhatsApp through Twilio (TWILIO_*); null: no text messages (steps that send them are refused). */
  twilio: TwilioConfig | null;
  /** Paid event types: svc's platform account at Stripe (STRIPE_*; null: no event type may charge), and how long an unpaid booking holds its time (SVC_PAYMENT_HOLD_MINUTES). */
  payments: PaymentsConfig;
  /** Verification codes (verified emails and phones): how long one lasts, and how many a caller and a destination may ask for per hour. */
  verification: { codeTtlMs: number; perCallerPerHour: number; perDestinationPerHour: number; wrongCodesPerHour: number };
}

/** Connected calendars: how their busy time is synced and when it stops being trusted. */
export interface CalendarsConfig {
  /** How often each selected calendar is read (push, where a provider offers it, comes on top). */
  pollMs: number;
  /**
   * The public base address Google and Microsoft send change notifications to (SVC_CALENDAR_PUSH_URL;
   * APP_URL when that is https); null: no push, calendars are polled.
   */
  pushUrl: string | null;
  /** How often a calendar with a live push channel is read anyway (a notification can be lost). */
  pushPollMs: number;
  /** A calendar failing longer than this makes its owner unavailable. */
  failureGraceMs: number;
  /** Busy time is kept from 2 days back to this many days ahead; later times count as busy. */
  syncDays: number;
  /** The longest one provider call may take. */
  requestTimeoutMs: number;
  /** How long a booking waits for its hosts' calendars to be read live (0: not read, the stored busy time stands). */
  liveCheckMs: number;
  /** A calendar is read live at most once per this interval in a process, however many bookings ask. */
  liveCheckIntervalMs: number;
  /** The largest feed or answer read. */
  maxResponseBytes: number;
  /** svc's OAuth app at Google (SVC_GOOGLE_CLIENT_ID / _SECRET); null: Google calendars cannot be connected. */
  google: OAuthAppConfig | null;
  /** svc's app at Microsoft (SVC_MICROSOFT_CLIENT_ID / _SECRET); null: Outlook calendars cannot be connected. */
  microsoft: OAuthAppConfig | null;
  /** Where each provider answers, with or without an app of svc's (organizations' delegation credentials bring their own). */
  endpoints: { google: OAuthAppConfig['endpoints']; microsoft: OAuthAppConfig['endpoints'] };
}

/** An OAuth app registered with a calendar provider, and where the provider answers (overridable for local servers). */
export interface OAuthAppConfig {
  clientId: string;
  clientSecret: string;
  endpoints: { authorize: string; token: string; api: string };
}

/** Failed web logins allowed before each further attempt waits (see modules/auth/login-failures.service.ts). */
export interface LoginLimits {
  /** Per account (the email as typed), within 24 hours and since its last success. */
  failuresPerAccount: number;
  /** Per client IP address (IPv6: per /64), within an hour. */
  failuresPerIp: number;
}

/**
 * What requests without credentials may make svc mail to people other than a booking's hosts, beyond
 * each request's first message to its booker: messages per window per caller address and per event type.
 */
export interface MailLimits {
  windowMs: number;
  anonymous: number;
  eventType: number;
}

/** Outgoing mail (booking mail and invitations). */
export interface MailConfig {
  /** `smtp://user:pass@host:port` or `smtps://...`; undefined: each message is written to the log (no body) instead. */
  smtpUrl: string | undefined;
  /** The From address (`Name <address>` or a bare address). */
  from: string;
}

/** The background job runner of `svc serve` and `svc worker`. */
export interface JobsConfig {
  /** First retry delay of a failed job; it doubles with each attempt, capped at one hour. */
  retryBaseMs: number;
  /** A claimed job not finished within its lease is handed to another worker. */
  leaseMs: number;
  /** Jobs one process runs at once (webhook deliveries mostly wait on the network). */
  concurrency: number;
  /** Finished (done or failed) jobs are deleted this many days after they finished. */
  retentionDays: number;
  /** Delivered and failed webhook deliveries, with their attempt logs, are deleted this many days after they were made. */
  webhookDeliveryRetentionDays: number;
}

export interface RateLimitConfig {
  enabled: boolean;
  windowMs: number;
  blockMs: number;
  apiKey: number;
  accessToken: number;
  oauthClient: number;
  anonymous: number;
  /** Tighter per-window limits of an anonymous caller on the expensive routes (see `http/access.ts`). */
  anonymousRoutes: { Slots: number; Reservations: number; Bookings: number };
}

export { ConfigError };

const MAKE_A_KEY = 'make one with `npx svc encryption-key` (or: openssl rand -hex 32)';

/** SVC_NOW must name one instant: a date-time with Z or an offset, never a wall-clock time. */
function fixedNow(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.SVC_NOW;
  if (raw === undefined || raw === '') return undefined;
  const date = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.exec(raw);
  // Date.parse rolls 02-30 over into March: the calendar date must exist as written.
  const real = date !== null && new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]))).toISOString().startsWith(raw.slice(0, 10));
  const instant = real ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(instant)) throw new ConfigError(`SVC_NOW must be an ISO 8601 date-time with Z or an offset (2026-02-27T00:00:00Z), got "${raw}"`);
  return instant;
}

type OAuthProvider = 'GOOGLE' | 'MICROSOFT' | 'ZOOM';

/** SVC_<PROVIDER>_CLIENT_ID and _SECRET, and _AUTHORIZE_URL, _TOKEN_URL, _API_URL over the provider's own. */
function oauthApp(env: NodeJS.ProcessEnv, provider: OAuthProvider, defaults: OAuthAppConfig['endpoints']): OAuthAppConfig | null {
  const clientId = env[`SVC_${provider}_CLIENT_ID`];
  const clientSecret = env[`SVC_${provider}_CLIENT_SECRET`];
  if (!clientId && !clientSecret) return null;
  if (!clientId || !clientSecret) throw new ConfigError(`SVC_${provider}_CLIENT_ID and SVC_${provider}_CLIENT_SECRET go together: set both or neither`);
  return { clientId, clientSecret, endpoints: providerEndpoints(env, provider, defaults) };
}

/** SVC_CALENDAR_PUSH_URL (`off`: none), else APP_URL when it is https (providers send notifications to https only). */
function pushUrlOf(env: NodeJS.ProcessEnv): string | null {
  const raw = env.SVC_CALENDAR_PUSH_URL;
  if (raw === 'off') return null;
  const value = raw || (env.APP_URL?.startsWith('https://') ? env.APP_URL : '');
  return value ? parseHttpUrl('SVC_CALENDAR_PUSH_URL', value, 'an http(s) URL or "off"') : null;
}

function providerEndpoints(env: NodeJS.ProcessEnv, provider: OAuthProvider, defaults: OAuthAppConfig['endpoints']): OAuthAppConfig['endpoints'] {
  const url = (name: string, fallback: string) => {
    const value = env[`SVC_${provider}_${name}`] || fallback;
    try {
      return new URL(value).href.replace(/\/+$/, '');
    } catch {
      throw new ConfigError(`SVC_${provider}_${name} must be a URL, not "${value}"`);
    }
  };
  return { authorize: url('AUTHORIZE_URL', defaults.authorize), token: url('TOKEN_URL', defaults.token), api: url('API_URL', defaults.api) };
}

/** `value` of the variable `name` as an http(s) URL without a trailing slash; `accepted` says what else it may be. */

/** An origin a site is served from (https://shop.example, http://localhost:3000): scheme, host and port only. */
function parseOrigin(value: string): string {
  const url = parseHttpUrl('SVC_EMBED_ORIGINS', value, 'a comma-separated list of origins (https://shop.example)');
  if (new URL(url).origin !== url) throw new ConfigError(`SVC_EMBED_ORIGINS lists origins only (scheme, host, port), not "${value}"`);
  return url;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const adminApiKey = env.SVC_ADMIN_API_KEY || undefined;
  if (adminApiKey !== undefined && !/^svc_[A-Za-z0-9_]{8,}$/.test(adminApiKey)) {
    throw new ConfigError('SVC_ADMIN_API_KEY must start with "svc_" followed by at least 8 letters, digits or underscores');
  }
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL');
  }
  const port = int(env, 'PORT', 5555);
  const anonymous = int(env, 'RATE_LIMIT_ANONYMOUS', 120, 1);
  let encryptionKey: Buffer | undefined;
  if (env.SVC_ENCRYPTION_KEY) {
    encryptionKey = parseEncryptionKey(env.SVC_ENCRYPTION_KEY) ?? undefined;
    if (!encryptionKey) throw new ConfigError(`SVC_ENCRYPTION_KEY must be 32 bytes: 64 hex characters or base64; ${MAKE_A_KEY}`);
  } else if (databaseUrl !== undefined) {
    // A key generated into one process's data dir would differ from every other process's.
    throw new ConfigError(
      `SVC_ENCRYPTION_KEY is required with DATABASE_URL: every process sharing the database must seal secrets with the same key; ${MAKE_A_KEY}. ` +
        'A deployment that ran without it used the key svc generated into <SVC_DATA_DIR>/encryption.key: set that one.',
    );
  }
  const webhookTimeoutMs = int(env, 'SVC_WEBHOOK_TIMEOUT_MS', 10_000, 1);
  const calendars: CalendarsConfig = {
    pollMs: int(env, 'SVC_CALENDAR_POLL_MS', 300_000, 1_000),
    pushUrl: pushUrlOf(env),
    pushPollMs: int(env, 'SVC_CALENDAR_PUSH_POLL_MS', 3_600_000, 1_000),
    failureGraceMs: int(env, 'SVC_CALENDAR_FAILURE_GRACE_MS', 900_000, 0),
    syncDays: int(env, 'SVC_CALENDAR_SYNC_DAYS', 400, 1),
    requestTimeoutMs: int(env, 'SVC_CALENDAR_REQUEST_TIMEOUT_MS', 15_000, 1),
    liveCheckMs: int(env, 'SVC_CALENDAR_LIVE_CHECK_MS', 2_000, 0),
    liveCheckIntervalMs: int(env, 'SVC_CALENDAR_LIVE_CHECK_INTERVAL_MS', 5_000, 0),
    maxResponseBytes: int(env, 'SVC_CALENDAR_MAX_RESPONSE_BYTES', 20 * 1024 * 1024, 1024),
    google: oauthApp(env, 'GOOGLE', GOOGLE_ENDPOINTS),
    microsoft: oauthApp(env, 'MICROSOFT', MICROSOFT_ENDPOINTS),
    endpoints: { google: providerEndpoints(env, 'GOOGLE', GOOGLE_ENDPOINTS), microsoft: providerEndpoints(env, 'MICROSOFT', MICROSOFT_ENDPOINTS) },
  };
  const jobs: JobsConfig = {
    retryBaseMs: int(env, 'SVC_JOB_RETRY_BASE_MS', 10_000, 1),
    leaseMs: int(env, 'SVC_JOB_LEASE_MS', 60_000, 1000),
    concurrency: int(env, 'SVC_JOB_CONCURRENCY', 64, 1),
    retentionDays: int(env, 'SVC_JOB_RETENTION_DAYS', 7, 1),
    webhookDeliveryRetentionDays: int(env, 'SVC_WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 1),
  };
  // A job still running when its lease ends would be run again by another worker: a delivery must end first.
  if (jobs.leaseMs < webhookTimeoutMs + 1000) throw new ConfigError('SVC_JOB_LEASE_MS must exceed SVC_WEBHOOK_TIMEOUT_MS by at least 1000');
  return {
    port,
    // Loopback unless told otherwise: a laptop's svc is not offered to the whole network by default.
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.SVC_DATA_DIR || './data'),
    databaseUrl,
    databasePoolSize: int(env, 'SVC_DATABASE_POOL_SIZE', 10, 1),
    logLevel: env.LOG_LEVEL || 'info',
    adminApiKey,
    adminEmail: env.SVC_ADMIN_EMAIL || 'admin@svc.local',
    bodyLimitBytes: int(env, 'SVC_BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    redisUrl: env.REDIS_URL || undefined,
    rateLimit: {
      enabled: env.RATE_LIMIT_ENABLED !== '0',
      windowMs: int(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1),
      blockMs: int(env, 'RATE_LIMIT_BLOCK_MS', 60_000, 0),
      apiKey: int(env, 'RATE_LIMIT_API_KEY', 120, 1),
      accessToken: int(env, 'RATE_LIMIT_ACCESS_TOKEN', 500, 1),
      oauthClient: int(env, 'RATE_LIMIT_OAUTH_CLIENT', 500, 1),
      anonymous,
      // By default a quarter (slots) and a twelfth (reservations, bookings) of the anonymous limit.
      anonymousRoutes: {
        Slots: int(env, 'RATE_LIMIT_ANONYMOUS_SLOTS', Math.max(1, Math.floor(anonymous / 4)), 1),
        Reservations: int(env, 'RATE_LIMIT_ANONYMOUS_RESERVATIONS', Math.max(1, Math.floor(anonymous / 12)), 1),
        Bookings: int(env, 'RATE_LIMIT_ANONYMOUS_BOOKINGS', Math.max(1, Math.floor(anonymous / 12)), 1),
      },
    },
    authCacheTtlMs: int(env, 'SVC_AUTH_CACHE_TTL_MS', 30_000, 0),
    shutdownTimeoutMs: int(env, 'SVC_SHUTDOWN_TIMEOUT_MS', 10_000, 0),
    appUrl: env.APP_URL || `http://localhost:${port}`,
    videoUrl: parseHttpUrl('SVC_VIDEO_URL', env.SVC_VIDEO_URL || 'https://meet.jit.si'),
    embedOrigins: (env.SVC_EMBED_ORIGINS ?? '').split(',').map((origin) => origin.trim()).filter(Boolean).map(parseOrigin),
    encryptionKey,
    allowPrivateWebhooks: env.SVC_ALLOW_PRIVATE_WEBHOOKS === '1',
    webhookTimeoutMs,
    calendars,
    zoom: oauthApp(env, 'ZOOM', ZOOM_ENDPOINTS),
    daily: dailyConfig(env),
    twilio: twilioConfig(env, env.APP_URL || `http://localhost:${port}`),
    payments: paymentsConfig(env),
    verification: {
      codeTtlMs: int(env, 'SVC_VERIFICATION_CODE_TTL_MS', 10 * 60_000, 1000),
      perCallerPerHour: int(env, 'SVC_VERIFICATION_PER_CALLER', 10, 1),
      perDestinationPerHour: int(env, 'SVC_VERIFICATION_PER_DESTINATION', 5, 1),
      wrongCodesPerHour: int(env, 'SVC_VERIFICATION_WRONG_CODES', 10, 1),
    },
    jobs,
    fixedNow: fixedNow(env),
    mail: loadMailConfig(env),
    login: {
      failuresPerAccount: int(env, 'SVC_LOGIN_ACCOUNT_FAILURES', 5, 1),
      failuresPerIp: int(env, 'SVC_LOGIN_IP_FAILURES', 20, 1),
    },
    mailLimits: {
      windowMs: int(env, 'SVC_MAIL_LIMIT_WINDOW_MS', 3_600_000, 1000),
      anonymous: int(env, 'SVC_MAIL_LIMIT_ANONYMOUS', 40, 0),
      eventType: int(env, 'SVC_MAIL_LIMIT_EVENT_TYPE', 400, 0),
    },
  };
}

function loadMailConfig(env: NodeJS.ProcessEnv): MailConfig {
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^/]/.test(smtpUrl)) throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL');
  return { smtpUrl, from: env.SMTP_FROM || 'svc <no-reply@svc.local>' };
}
