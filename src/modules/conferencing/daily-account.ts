import type { Config } from '../../app/config.js';
import type { DailyAccount } from '../../integrations/daily/client.js';
import { outboundFetch } from '../../integrations/outbound-fetch.js';
import { outboundPolicy } from '../calendars/calendar-sync.js';

/** svc's Daily domain, called through the guarded fetch the calendar providers use; null without a Daily key. */
export function dailyAccount(config: Pick<Config, 'daily' | 'allowPrivateWebhooks' | 'calendars'>): DailyAccount | null {
  const { daily } = config;
  return daily && { apiKey: daily.apiKey, apiUrl: daily.apiUrl, fetch: outboundFetch(outboundPolicy(config)) };
}
