// Daily for the built-in video as the process's environment sets it (SVC_DAILY_*).
import { ConfigError } from './config-error.js';
import { parseHttpUrl } from './config-values.js';

export interface DailyConfig {
  apiKey: string;
  /** Daily's REST API (SVC_DAILY_API_URL, https://api.daily.co/v1). */
  apiUrl: string;
  /** The domain's rooms (SVC_DAILY_ROOM_URL, e.g. https://acme.daily.co): a room's link is `${roomUrl}/${name}`. */
  roomUrl: string;
  /** The HMAC secret (base64) of the Daily webhook svc is sent (SVC_DAILY_WEBHOOK_SECRET); null: Daily's webhooks are refused. */
  webhookSecret: Buffer | null;
}

export function dailyConfig(env: NodeJS.ProcessEnv): DailyConfig | null {
  const apiKey = env.SVC_DAILY_API_KEY;
  if (!apiKey) return null;
  if (!env.SVC_DAILY_ROOM_URL) throw new ConfigError('SVC_DAILY_ROOM_URL (the domain\'s address, e.g. https://acme.daily.co) goes with SVC_DAILY_API_KEY');
  const secret = env.SVC_DAILY_WEBHOOK_SECRET;
  if (secret && !/^[A-Za-z0-9+/]+={0,2}$/.test(secret)) throw new ConfigError('SVC_DAILY_WEBHOOK_SECRET must be the base64 HMAC secret Daily gave the webhook');
  return {
    apiKey,
    apiUrl: parseHttpUrl('SVC_DAILY_API_URL', env.SVC_DAILY_API_URL || 'https://api.daily.co/v1'),
    roomUrl: parseHttpUrl('SVC_DAILY_ROOM_URL', env.SVC_DAILY_ROOM_URL),
    webhookSecret: secret ? Buffer.from(secret, 'base64') : null,
  };
}
