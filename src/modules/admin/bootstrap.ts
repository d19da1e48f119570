import type { Config } from '../../app/config.js';
import type { Db } from '../../db/client.js';
import { hashApiKey } from '../../lib/crypto.js';
import { apiKeyExists, issueApiKey } from '../api-keys/api-keys.service.js';
import { countUsers, createUser, findSystemAdminId } from '../users/users.service.js';

export interface BootstrapResult {
  created: boolean;
  /** Set only when svc generated the key: it must be shown once, since only its hash is kept. */
  generatedApiKey?: string;
  /** SVC_ADMIN_API_KEY is set but the store was bootstrapped with another key: it is not a key here. */
  presetKeyIgnored?: boolean;
}

/** On an empty store, creates the system admin with `SVC_ADMIN_API_KEY` or a fresh never-expiring key. */
export async function bootstrapSystemAdmin(db: Db, config: Pick<Config, 'adminApiKey' | 'adminEmail'>): Promise<BootstrapResult> {
  if ((await countUsers(db)) > 0) {
    const ignored = config.adminApiKey !== undefined && !(await apiKeyExists(db, hashApiKey(config.adminApiKey)));
    return ignored ? { created: false, presetKeyIgnored: true } : { created: false };
  }
  const admin = await createUser(db, { email: config.adminEmail, name: 'System Admin', username: 'admin', role: 'ADMIN', timeZone: 'UTC' });
  const apiKey = await issueApiKey(db, admin.id, { neverExpires: true, name: 'bootstrap', ...(config.adminApiKey ? { presetKey: config.adminApiKey } : {}) });
  return config.adminApiKey ? { created: true } : { created: true, generatedApiKey: apiKey };
}

/**
 * `svc admin-key`: a new never-expiring key for the system admin (the way back from a lost one),
 * `presetKey` (SVC_ADMIN_API_KEY) when given. Earlier keys keep working until deleted.
 */
export async function issueSystemAdminKey(db: Db, presetKey: string | undefined): Promise<string> {
  const adminId = await findSystemAdminId(db);
  if (adminId === undefined) throw new Error('this store has no system admin yet: start svc once (svc serve or svc migrate) to create it');
  if (presetKey !== undefined && (await apiKeyExists(db, hashApiKey(presetKey)))) return presetKey;
  return issueApiKey(db, adminId, { neverExpires: true, name: 'svc admin-key', ...(presetKey ? { presetKey } : {}) });
}
