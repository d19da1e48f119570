import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';

export const TEMPLATE_MAX_LENGTH = 5000;

const Template = Type.String({ maxLength: TEMPLATE_MAX_LENGTH, description: 'custom mode: the description; HTML tags are stripped before saving, Markdown links kept; placeholders per spec 2.9' });

const audienceInput = <M extends readonly string[]>(modes: M, description: string) =>
  Type.Object({ mode: StringEnum(modes, { description }), template: Type.Optional(Type.Union([Template, Type.Null()])) }, { additionalProperties: false });

export const EventTypeInvitesBody = Type.Object(
  {
    host: Type.Optional(audienceInput(['inherit', 'standard', 'custom'] as const, 'inherit: the organization default, else the standard description; standard; custom: template')),
    guest: Type.Optional(audienceInput(['inherit', 'standard', 'custom'] as const, 'inherit: the organization default, else the standard description; standard; custom: template')),
  },
  { additionalProperties: false, description: 'At least one audience; a patch changes only the audiences it names' },
);

export const OrganizationInvitesBody = Type.Object(
  {
    host: Type.Optional(audienceInput(['inherit', 'custom'] as const, 'inherit: no default (the standard description); custom: template')),
    guest: Type.Optional(audienceInput(['inherit', 'custom'] as const, 'inherit: no default (the standard description); custom: template')),
  },
  { additionalProperties: false, description: 'At least one audience; a patch changes only the audiences it names' },
);

const AudienceOutput = Type.Object({ mode: Type.String({ description: 'inherit, standard (event types only) or custom' }), template: Type.Union([Type.String(), Type.Null()]) });

export const OrganizationInvitesOutput = Type.Object({ host: AudienceOutput, guest: AudienceOutput });

export const EventTypeInvitesOutput = Type.Object({
  host: AudienceOutput,
  guest: AudienceOutput,
  organizationDefault: Type.Union([OrganizationInvitesOutput, Type.Null()], { description: "The default of the event type's organization, which `inherit` uses; null: no organization" }),
});
