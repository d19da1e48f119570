import type { OooRow } from './out-of-office.repository.js';

/** The reference's UserOooOutputDto; `end` is the last millisecond of the last day away. */
export function presentOoo(entry: OooRow) {
  return {
    userId: entry.userId,
    toUserId: entry.toUserId,
    id: entry.id,
    uuid: entry.uuid,
    start: entry.startAt.toISOString(),
    end: new Date(entry.endAt.getTime() - 1).toISOString(),
    notes: entry.notes,
    reason: entry.reason,
  };
}
