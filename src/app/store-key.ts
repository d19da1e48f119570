import type { Db } from '../db/client.js';
import type { SecretBox } from '../lib/secrets.js';
import { SealingKeyMismatch, verifySealingKey } from '../modules/system/sealing-key.service.js';
import { ConfigError } from './config.js';

/** Refuses to run with a sealing key other than the one the store's secrets were sealed with. */
export async function assertStoreKey(db: Db, secrets: SecretBox): Promise<void> {
  try {
    await verifySealingKey(db, secrets);
  } catch (error) {
    if (error instanceof SealingKeyMismatch) throw new ConfigError(error.message);
    throw error;
  }
}
