import type { Static } from 'typebox';
import type { AssignedOption, AssignmentRow, AttributeOptionRow, AttributeRow, HeldValue } from './attributes.repository.js';
import type { AssignedOptionOutput, AssignmentOutput, AttributeOutput, OptionOutput } from './attributes.schemas.js';

export const presentAttribute = (row: AttributeRow): Static<typeof AttributeOutput> => ({
  id: row.id,
  teamId: row.organizationId,
  type: row.type,
  name: row.name,
  slug: row.slug,
  enabled: row.enabled,
  usersCanEditRelation: row.usersCanEditRelation,
});

export const presentOption = (row: AttributeOptionRow): Static<typeof OptionOutput> => ({ id: row.id, attributeId: row.attributeId, value: row.value, slug: row.slug });

export const presentAssignedOption = (row: AssignedOption): Static<typeof AssignedOptionOutput> => ({ ...presentOption(row), assignedUserIds: row.assignedUserIds });

export const presentAssignment = (row: AssignmentRow): Static<typeof AssignmentOutput> => ({ id: row.id, memberId: row.membershipId, attributeOptionId: row.optionId });

/** A member's values as organization membership outputs show them: one entry per attribute, multi-select ones with their options. */
export function presentMemberAttributes(rows: readonly HeldValue[]) {
  const byAttribute = new Map<string, { id: string; name: string; type: string; options: { optionId: string; option: string }[] }>();
  for (const row of rows) {
    const entry = byAttribute.get(row.attributeId) ?? { id: row.attributeId, name: row.name, type: row.type, options: [] };
    entry.options.push({ optionId: row.optionId, option: row.value });
    byAttribute.set(row.attributeId, entry);
  }
  return [...byAttribute.values()].map(({ options, ...attribute }) =>
    attribute.type === 'MULTI_SELECT' ? { ...attribute, options } : { ...attribute, option: options[0]!.option, optionId: options[0]!.optionId },
  );
}
