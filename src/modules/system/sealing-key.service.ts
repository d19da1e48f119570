import type { Db } from '../../db/client.js';
import type { SecretBox } from '../../lib/secrets.js';
import { insertSettingOnce } from './store-settings.repository.js';

const CHECK_SETTING = 'sealing_key_check';
const CHECK_TEXT = 'svc sealing key check';

export class SealingKeyMismatch extends Error {}

/**
 * Proves the process seals with the same key as the store's secrets were sealed with. The first
 * process to start on a store records a sealed known text; every later one must open it. Without
 * this, a process given another SVC_ENCRYPTION_KEY would start and then fail on every sealed secret.
 */
export async function verifySealingKey(db: Db, secrets: SecretBox): Promise<void> {
  const check = await insertSettingOnce(db, CHECK_SETTING, secrets.seal(CHECK_TEXT));
  let opened: string | undefined;
  try {
    opened = secrets.open(check);
  } catch {
    opened = undefined;
  }
  if (opened !== CHECK_TEXT) {
    throw new SealingKeyMismatch(
      'the sealing key (SVC_ENCRYPTION_KEY, or encryption.key in the data dir) is not the one this store\'s secrets were sealed with: ' +
        'every process sharing a database must be given the same SVC_ENCRYPTION_KEY',
    );
  }
}
