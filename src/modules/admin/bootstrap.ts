import type { Config } from '../../app/config.js';
import type { Db } from '../../db/client.js';
import { issueApiKey } from '../api-keys/api-keys.service.js';
import { countUsers, createUser } from '../users/users.service.js';

export interface BootstrapResult {
  created: boolean;
  /** Set only when svc generated the key: it must be shown once, since only its hash is kept. */
  generatedApiKey?: string;
}

/** On an empty store, creates the system admin with `SVC_ADMIN_API_KEY` or a fresh never-expiring key. */
export async function bootstrapSystemAdmin(db: Db, config: Pick<Config, 'adminApiKey' | 'adminEmail'>): Promise<BootstrapResult> {
  if ((await countUsers(db)) > 0) return { created: false };
  const admin = await createUser(db, { email: config.adminEmail, name: 'System Admin', username: 'admin', role: 'ADMIN', timeZone: 'UTC' });
  const apiKey = await issueApiKey(db, admin.id, { neverExpires: true, name: 'bootstrap', ...(config.adminApiKey ? { presetKey: config.adminApiKey } : {}) });
  return config.adminApiKey ? { created: true } : { created: true, generatedApiKey: apiKey };
}
