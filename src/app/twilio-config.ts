// Twilio as the process's environment sets it (TWILIO_*), for workflow and verification text messages.
import { type TwilioConfig, twilioConfigFromEnv } from '../integrations/twilio/client.js';
import { ConfigError } from './config-error.js';

/** svc's route for Twilio's delivery reports (text-messages module). */
export const TWILIO_STATUS_PATH = '/v2/text-messages/twilio/status';

/** Twilio from TWILIO_*; its delivery reports come to svc's own status callback unless one is set. */
export function twilioConfig(env: NodeJS.ProcessEnv, appUrl: string): TwilioConfig | null {
  let config: TwilioConfig | null;
  try {
    config = twilioConfigFromEnv(env, env.SVC_ALLOW_PRIVATE_WEBHOOKS === '1');
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return config && { ...config, statusCallbackUrl: config.statusCallbackUrl ?? `${appUrl.replace(/\/+$/, '')}${TWILIO_STATUS_PATH}` };
}
