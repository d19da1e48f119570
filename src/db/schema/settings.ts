// Facts about the store itself, shared by every process that opens it.
import { pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

/**
 * One row per setting. `sealing_key_check` holds a known text sealed with the key the store's secrets
 * are sealed with, so a process started with another key is refused at start instead of failing later.
 */
export const storeSettings = pgTable('store_settings', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: createdAt(),
});
