import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiKeys } from '../../db/schema.js';

export async function insertApiKey(db: Db, key: { userId: number; hashedKey: string; name: string | null; expiresAt: Date | null }) {
  const [row] = await db.insert(apiKeys).values(key).returning({ id: apiKeys.id });
  return row!;
}

export async function findApiKeyIdByHash(db: Db, hashedKey: string): Promise<number | undefined> {
  const [row] = await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.hashedKey, hashedKey));
  return row?.id;
}

export async function deleteApiKeyByHash(db: Db, hashedKey: string): Promise<{ id: number; name: string | null } | undefined> {
  const [row] = await db.delete(apiKeys).where(eq(apiKeys.hashedKey, hashedKey)).returning({ id: apiKeys.id, name: apiKeys.name });
  return row;
}
