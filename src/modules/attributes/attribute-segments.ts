// Who of a round-robin team event type's hosts may take its bookings, by their organization attributes
// (the reference's assignRRMembersUsingSegment): a condition written in JsonLogic (jsonlogic.com, the
// json-logic-js library evaluates it) over `attributes.<slug>`, each member's value of that attribute
// (a string; a number for NUMBER attributes; an array of strings for MULTI_SELECT ones). svc takes
// JsonLogic rather than the reference's query-builder trees: those are the state of its web app's editor,
// not a documented format, and its v2 API takes neither (README, differences).
import { assertLogic, type Logic, matcher } from '../../lib/json-logic.js';
import type { HeldValue } from './attributes.repository.js';

export type SegmentQuery = Logic;

/** A name a condition over members reads: `attributes.<slug>` (slugs are case-insensitive). */
export const attributeOfVar = (name: string) => (name.startsWith('attributes.') ? name.slice('attributes.'.length).toLowerCase() : null);

/**
 * A condition as the event type stores it: JsonLogic naming only attributes the organization has
 * (`attributes.<slug>`). A 400 naming `field` otherwise.
 */
export function assertSegmentQuery(query: unknown, attributeSlugs: ReadonlySet<string>, field: string): SegmentQuery {
  return assertLogic(query, field, (name) => attributeSlugs.has(attributeOfVar(name) ?? '\u0000'), '"attributes.<slug>" of an attribute of the organization');
}

/** A member's attribute values as a condition reads them (slugs in lower case). */
export type MemberValues = Record<string, string | number | string[]>;

/** Case-insensitive attribute names: `attributes.Region` reads `attributes.region`. */
export const lowerAttributeVar = (name: string) => (name.startsWith('attributes.') ? name.toLowerCase() : name);

/** Whether a member's values satisfy the condition (renamed once for all the members tested). */
export function segmentMatcher(query: SegmentQuery): (values: MemberValues) => boolean {
  const test = matcher(query, lowerAttributeVar);
  return (values) => test({ attributes: values });
}

/** Members' values from rows of (user, attribute slug and type, option value). */
export function memberValues(rows: readonly Pick<HeldValue, 'userId' | 'slug' | 'type' | 'value'>[]): Map<number, MemberValues> {
  const byUser = new Map<number, MemberValues>();
  for (const row of rows) {
    const values = byUser.get(row.userId) ?? {};
    const slug = row.slug.toLowerCase();
    if (row.type === 'MULTI_SELECT') values[slug] = [...((values[slug] as string[] | undefined) ?? []), row.value];
    else values[slug] = row.type === 'NUMBER' ? Number(row.value) : row.value;
    byUser.set(row.userId, values);
  }
  return byUser;
}
