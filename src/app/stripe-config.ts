// Stripe as the process's environment sets it (STRIPE_*), for paid bookings through hosts' connected accounts.
import { type StripeConfig, stripeConfigFromEnv } from '../integrations/stripe/client.js';
import { ConfigError } from './config-error.js';

/** Stripe from STRIPE_*, or null when it is not configured; partial or malformed settings stop svc. */
export function stripeConfig(env: NodeJS.ProcessEnv): StripeConfig | null {
  try {
    return stripeConfigFromEnv(env);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}
