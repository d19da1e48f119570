// Organization attributes (the reference's OrganizationsAttributes and ...Options controllers), with the
// checks its repository leaves out: an option, an assignment or a member always belongs to the
// organization named in the path; slugs are unique per organization (attributes) and per attribute
// (options), a 409 naming them; a single-valued attribute (SINGLE_SELECT, TEXT, NUMBER) holds one value
// per member, a new one replacing the old; assigning what a member holds already changes nothing.
import type { Db } from '../../db/client.js';
import type { AttributeType } from '../../db/schema.js';
import { badRequest, conflict, invalidField, notFound } from '../../lib/errors.js';
import * as repo from './attributes.repository.js';
import { presentMemberAttributes } from './attributes.presenter.js';

const attributeNotFound = () => notFound('attribute_not_found', 'Attribute not found');
const optionNotFound = () => notFound('attribute_option_not_found', 'Attribute option not found');

/** Types whose members get a value of their own (its option is made when first given). */
const TAKES_VALUE: ReadonlySet<AttributeType> = new Set(['TEXT', 'NUMBER']);
const SELECTS: ReadonlySet<AttributeType> = new Set(['SINGLE_SELECT', 'MULTI_SELECT']);

export function listAttributes(db: Db, organizationId: number, page: { skip: number; take: number }): Promise<repo.AttributeRow[]> {
  return repo.listAttributes(db, organizationId, page);
}

export async function getAttribute(db: Db, organizationId: number, id: string): Promise<repo.AttributeRow> {
  const found = await repo.findAttribute(db, organizationId, { id });
  if (!found) throw attributeNotFound();
  return found;
}

async function lockedAttribute(tx: Db, organizationId: number, id: string): Promise<repo.AttributeRow> {
  const found = await repo.lockAttribute(tx, organizationId, id);
  if (!found) throw attributeNotFound();
  return found;
}

async function assertSlugFree(tx: Db, organizationId: number, slug: string, exceptId?: string): Promise<void> {
  if (await repo.isAttributeSlugTaken(tx, organizationId, slug, exceptId)) {
    throw conflict('attribute_slug_taken', `An attribute with the slug "${slug}" already exists in this organization`, { property: 'slug' });
  }
}

export interface CreateAttributeInput {
  name: string;
  slug: string;
  type: AttributeType;
  options: { value: string; slug: string }[];
  enabled?: boolean | undefined;
}

export async function createAttribute(tx: Db, organizationId: number, input: CreateAttributeInput): Promise<repo.AttributeRow> {
  const options = SELECTS.has(input.type) ? input.options : [];
  const seen = new Set<string>();
  options.forEach((option, index) => {
    const key = option.slug.toLowerCase();
    if (seen.has(key)) throw invalidField(`options.${index}.slug`, 'repeats the slug of another option', option.slug);
    seen.add(key);
  });
  await assertSlugFree(tx, organizationId, input.slug);
  const attribute = await repo.insertAttribute(tx, organizationId, { name: input.name, slug: input.slug, type: input.type, enabled: input.enabled ?? true });
  await repo.insertOptions(tx, attribute.id, options);
  return attribute;
}

export async function updateAttribute(tx: Db, organizationId: number, id: string, changes: Partial<Omit<CreateAttributeInput, 'options'>>): Promise<repo.AttributeRow> {
  const attribute = await lockedAttribute(tx, organizationId, id);
  if (changes.slug !== undefined) await assertSlugFree(tx, organizationId, changes.slug, id);
  const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  return Object.keys(set).length ? repo.updateAttribute(tx, id, set) : attribute;
}

/** Deletes the attribute with its options and every member's value of it; answers it as it was. */
export async function deleteAttribute(tx: Db, organizationId: number, id: string): Promise<repo.AttributeRow> {
  const attribute = await lockedAttribute(tx, organizationId, id);
  await repo.deleteAttribute(tx, id);
  return attribute;
}

async function assertOptionSlugFree(tx: Db, attributeId: string, slug: string, exceptId?: string): Promise<void> {
  if (await repo.isOptionSlugTaken(tx, attributeId, slug, exceptId)) {
    throw conflict('attribute_option_slug_taken', `An option with the slug "${slug}" already exists in this attribute`, { property: 'slug' });
  }
}

export async function createOption(tx: Db, organizationId: number, attributeId: string, input: { value: string; slug: string }): Promise<repo.AttributeOptionRow> {
  await lockedAttribute(tx, organizationId, attributeId);
  await assertOptionSlugFree(tx, attributeId, input.slug);
  const [option] = await repo.insertOptions(tx, attributeId, [input]);
  return option!;
}

export async function listOptions(db: Db, organizationId: number, attributeId: string): Promise<repo.AttributeOptionRow[]> {
  await getAttribute(db, organizationId, attributeId);
  return repo.listOptions(db, attributeId);
}

async function existingOption(tx: Db, organizationId: number, attributeId: string, optionId: string): Promise<repo.AttributeOptionRow> {
  await lockedAttribute(tx, organizationId, attributeId);
  const option = await repo.findOption(tx, attributeId, optionId);
  if (!option) throw optionNotFound();
  return option;
}

export async function updateOption(tx: Db, organizationId: number, attributeId: string, optionId: string, changes: { value?: string | undefined; slug?: string | undefined }): Promise<repo.AttributeOptionRow> {
  const option = await existingOption(tx, organizationId, attributeId, optionId);
  if (changes.slug !== undefined) await assertOptionSlugFree(tx, attributeId, changes.slug, optionId);
  const set = { ...(changes.value !== undefined ? { value: changes.value } : {}), ...(changes.slug !== undefined ? { slug: changes.slug } : {}) };
  return Object.keys(set).length ? repo.updateOption(tx, optionId, set) : option;
}

/** Deletes the option and every member's hold of it; answers it as it was. */
export async function deleteOption(tx: Db, organizationId: number, attributeId: string, optionId: string): Promise<repo.AttributeOptionRow> {
  const option = await existingOption(tx, organizationId, attributeId, optionId);
  await repo.deleteOption(tx, optionId);
  return option;
}

export interface AssignedOptionsQuery {
  assignedOptionIds?: string[] | undefined;
  teamIds?: string[] | undefined;
  skip?: number | undefined;
  take?: number | undefined;
}

const splitList = (values: readonly string[] | undefined) => (values ?? []).flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean);

/** The attribute's options members hold, by its id or slug, with who holds each. */
export async function assignedOptions(db: Db, organizationId: number, by: { id: string } | { slug: string }, query: AssignedOptionsQuery): Promise<repo.AssignedOption[]> {
  const attribute = await repo.findAttribute(db, organizationId, by);
  if (!attribute) throw attributeNotFound();
  const heldWith = query.assignedOptionIds === undefined ? undefined : splitList(query.assignedOptionIds);
  if (heldWith !== undefined && heldWith.length === 0) throw invalidField('assignedOptionIds', 'must contain at least 1 attribute option id', query.assignedOptionIds);
  const inTeams = splitList(query.teamIds).map(Number);
  const options = await repo.assignedOptions(db, organizationId, attribute.id, { heldWith, inTeams, skip: query.skip ?? 0, take: query.take ?? 250 });
  if (heldWith !== undefined && options.length === 0) {
    throw notFound('attribute_options_not_assigned', 'Options provided in assignedOptionIds are not assigned to anyone, or the users are not part of the teams specified in teamIds filter.');
  }
  return options;
}

async function acceptedMember(db: Db, organizationId: number, userId: number): Promise<{ id: number }> {
  const membership = await repo.findAcceptedMembership(db, organizationId, userId);
  if (!membership) throw notFound('organization_member_not_found', 'User is not a member of the organization');
  return membership;
}

/** "Sales EMEA" -> "sales-emea": the slug of an option made from a member's value. */
const slugOf = (value: string) =>
  value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200) || 'value';

async function optionForValue(tx: Db, attribute: repo.AttributeRow, value: string): Promise<repo.AttributeOptionRow> {
  if (attribute.type === 'NUMBER' && (value.trim() === '' || !Number.isFinite(Number(value)))) throw invalidField('value', 'must be a number for a NUMBER attribute', value);
  const existing = await repo.findOptionByValue(tx, attribute.id, value);
  if (existing) return existing;
  const base = slugOf(value);
  let slug = base;
  for (let suffix = 2; await repo.isOptionSlugTaken(tx, attribute.id, slug); suffix += 1) slug = `${base}-${suffix}`;
  const [made] = await repo.insertOptions(tx, attribute.id, [{ value, slug }]);
  return made!;
}

export interface AssignInput {
  attributeId: string;
  attributeOptionId?: string | undefined;
  value?: string | undefined;
}

export async function assignToMember(tx: Db, organizationId: number, userId: number, input: AssignInput): Promise<repo.AssignmentRow> {
  const attribute = await lockedAttribute(tx, organizationId, input.attributeId);
  const membership = await acceptedMember(tx, organizationId, userId);
  if (input.value !== undefined && !TAKES_VALUE.has(attribute.type)) {
    throw badRequest('attribute_value_not_supported', 'Attribute type does not support value', { property: 'value' });
  }
  let option: repo.AttributeOptionRow;
  if (input.attributeOptionId !== undefined) {
    const found = await repo.findOption(tx, attribute.id, input.attributeOptionId);
    if (!found) throw optionNotFound();
    option = found;
  } else if (input.value !== undefined) {
    option = await optionForValue(tx, attribute, input.value);
  } else {
    throw invalidField('attributeOptionId', 'or value is required');
  }
  const held = await repo.assignmentsOfMember(tx, attribute.id, membership.id);
  const same = held.find((assignment) => assignment.optionId === option.id);
  if (same) return same;
  if (attribute.type !== 'MULTI_SELECT') await repo.deleteAssignments(tx, held.map((assignment) => assignment.id));
  return repo.insertAssignment(tx, option.id, membership.id);
}

export async function unassignFromMember(tx: Db, organizationId: number, userId: number, optionId: string): Promise<repo.AssignmentRow> {
  const assignment = await repo.findAssignment(tx, organizationId, userId, optionId);
  if (!assignment) throw notFound('attribute_assignment_not_found', 'Attribute does not belong to this user');
  await repo.deleteAssignments(tx, [assignment.id]);
  return assignment;
}

export function optionsOfMember(db: Db, organizationId: number, userId: number): Promise<repo.AttributeOptionRow[]> {
  return repo.optionsOfUser(db, organizationId, userId);
}

/** The organization's attribute values of each of these members, as membership outputs show them (one read). */
export async function attributesByMember(db: Db, organizationId: number, userIds: number[]): Promise<Map<number, ReturnType<typeof presentMemberAttributes>>> {
  const rows = await repo.heldValues(db, organizationId, [...new Set(userIds)]);
  const byUser = new Map<number, typeof rows>();
  for (const row of rows) byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), row]);
  return new Map([...byUser].map(([userId, held]) => [userId, presentMemberAttributes(held)]));
}
