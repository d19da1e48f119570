// Stripe as the process's environment sets it (STRIPE_*), for paid bookings through hosts' connected accounts.
import { type StripeConfig, stripeConfigFromEnv } from '../integrations/stripe/client.js';
import { ConfigError } from './config-error.js';
import { int } from './config-values.js';

export interface PaymentsConfig {
  /** svc's platform account at Stripe; null: no event type may charge. */
  stripe: StripeConfig | null;
  /** How long an unpaid booking holds its time (SVC_PAYMENT_HOLD_MINUTES, 5 to 1440). */
  holdMs: number;
}

/** Stripe from STRIPE_*, or null when it is not configured; partial or malformed settings stop svc. */
export function stripeConfig(env: NodeJS.ProcessEnv): StripeConfig | null {
  try {
    return stripeConfigFromEnv(env);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

export function paymentsConfig(env: NodeJS.ProcessEnv): PaymentsConfig {
  return { stripe: stripeConfig(env), holdMs: Math.min(int(env, 'SVC_PAYMENT_HOLD_MINUTES', 30, 5), 1440) * 60_000 };
}
