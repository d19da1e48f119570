import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { storeSettings } from '../../db/schema.js';

export async function findSetting(db: Db, name: string): Promise<string | undefined> {
  const [row] = await db.select({ value: storeSettings.value }).from(storeSettings).where(eq(storeSettings.name, name));
  return row?.value;
}

/** Writes the setting unless another process wrote it first; returns the value in force. */
export async function insertSettingOnce(db: Db, name: string, value: string): Promise<string> {
  await db.insert(storeSettings).values({ name, value }).onConflictDoNothing();
  return (await findSetting(db, name))!;
}
