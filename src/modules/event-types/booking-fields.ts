import { Type, type Static } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { invalidField } from '../../lib/errors.js';
import type { BookingFieldType, StoredBookingField } from './event-type-model.js';

/** Kinds keyed by `type` (contract 5.3): three default fields and the custom kinds. */
const FIELD_TYPES = [
  'name', 'splitName', 'email', 'phone', 'address', 'text', 'number', 'textarea',
  'select', 'multiselect', 'multiemail', 'checkbox', 'radio', 'boolean', 'url',
] as const;
/** Default fields keyed by `slug`. */
const DEFAULT_SLUGS = ['title', 'location', 'notes', 'guests', 'rescheduleReason'] as const;
type CustomType = Exclude<(typeof FIELD_TYPES)[number], 'name' | 'splitName' | 'email'>;
type DefaultSlug = (typeof DEFAULT_SLUGS)[number];

const WITH_OPTIONS = new Set<CustomType>(['select', 'multiselect', 'checkbox', 'radio']);
const WITHOUT_PLACEHOLDER = new Set<CustomType>(['multiselect', 'checkbox', 'radio', 'boolean']);
/** The reference prints an absent label of these kinds as "". */
const EMPTY_LABEL_KINDS = new Set<string>(['phone', 'text', 'textarea', 'multiemail', 'url']);
/** Response keys taken by default fields: a custom field cannot use them. */
const RESERVED_SLUGS = new Set<string>(['name', 'splitName', 'email', ...DEFAULT_SLUGS]);
/** A phone field with this slug is the default attendee phone: it can stand in for the email field. */
const ATTENDEE_PHONE = 'attendeePhoneNumber';

const Text = (description?: string) => Type.Optional(Type.String({ maxLength: 1000, ...(description ? { description } : {}) }));

/** One object schema for every kind; `parseBookingFields` checks the keys each kind needs. */
export const BookingFieldInput = Type.Object(
  {
    type: Type.Optional(StringEnum(FIELD_TYPES, { description: 'Kind of field; not needed for the default fields keyed by slug' })),
    slug: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$', description: `Response key: a default slug (${DEFAULT_SLUGS.join(', ')}) or a custom one` })),
    label: Text(),
    placeholder: Text('Not for multiselect, checkbox, radio and boolean'),
    required: Type.Optional(Type.Boolean({ description: 'Required for custom fields' })),
    hidden: Type.Optional(Type.Boolean({ description: 'Kept in the settings but not shown to the booker' })),
    disableOnPrefill: Type.Optional(Type.Boolean({ description: 'Disable the field when the booking URL prefills it' })),
    options: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'select, multiselect, checkbox and radio' })),
    firstNameLabel: Text('splitName only'),
    firstNamePlaceholder: Text('splitName only'),
    lastNameLabel: Text('splitName only'),
    lastNamePlaceholder: Text('splitName only'),
    lastNameRequired: Type.Optional(Type.Boolean({ description: 'splitName only' })),
  },
  {
    description:
      'A booking-form field. Default fields: {type: name|splitName|email} or {slug: title|location|notes|guests|rescheduleReason}. Custom fields: {type, slug, label, required} plus options for select, multiselect, checkbox and radio.',
  },
);

export const BookingFieldOutput = Type.Object({
  isDefault: Type.Boolean(),
  type: Type.String({ description: 'Internal type: the default location field is radioInput, title text, notes and rescheduleReason textarea, guests multiemail' }),
  slug: Type.String(),
  required: Type.Optional(Type.Boolean()),
  label: Type.Optional(Type.String()),
  placeholder: Type.Optional(Type.String()),
  hidden: Type.Optional(Type.Boolean()),
  disableOnPrefill: Type.Optional(Type.Boolean()),
  options: Type.Optional(Type.Array(Type.String())),
  firstNameLabel: Type.Optional(Type.String()),
  firstNamePlaceholder: Type.Optional(Type.String()),
  lastNameLabel: Type.Optional(Type.String()),
  lastNamePlaceholder: Type.Optional(Type.String()),
  lastNameRequired: Type.Optional(Type.Boolean()),
});

type FieldBody = Static<typeof BookingFieldInput>;
type FieldOutput = Static<typeof BookingFieldOutput>;

const base = (slug: string, type: BookingFieldType, required: boolean, hidden: boolean): StoredBookingField => ({
  slug, type, isDefault: true, required, hidden, disableOnPrefill: false,
});

/** The reference's default fields, in its order: name, email, location, then (custom fields), title, notes, guests, rescheduleReason. */
const DEFAULT_FIELDS: Record<'name' | 'email' | DefaultSlug, StoredBookingField> = {
  name: base('name', 'name', true, false),
  email: base('email', 'email', true, false),
  location: base('location', 'radioInput', false, false),
  title: base('title', 'text', true, true),
  notes: base('notes', 'textarea', false, false),
  guests: base('guests', 'multiemail', false, false),
  rescheduleReason: base('rescheduleReason', 'textarea', false, false),
};

const withText = (field: StoredBookingField, body: FieldBody): StoredBookingField => ({
  ...field,
  ...(body.label !== undefined ? { label: body.label } : {}),
  ...(body.placeholder !== undefined ? { placeholder: body.placeholder } : {}),
  disableOnPrefill: body.disableOnPrefill === true,
});

function defaultBySlug(slug: DefaultSlug, body: FieldBody): StoredBookingField {
  // The location field only takes a label; the others take every key (required/hidden default to false, as in the reference).
  if (slug === 'location') return body.label === undefined ? DEFAULT_FIELDS.location : { ...DEFAULT_FIELDS.location, label: body.label };
  return withText({ ...DEFAULT_FIELDS[slug], required: body.required === true, hidden: body.hidden === true }, body);
}

function defaultByType(type: 'name' | 'splitName' | 'email', body: FieldBody): StoredBookingField {
  if (type === 'email') return withText({ ...DEFAULT_FIELDS.email, required: body.required ?? true, hidden: body.hidden === true }, body);
  if (type === 'name') return withText(DEFAULT_FIELDS.name, body);
  return {
    ...DEFAULT_FIELDS.name,
    disableOnPrefill: body.disableOnPrefill === true,
    split: {
      firstNameLabel: body.firstNameLabel ?? '',
      firstNamePlaceholder: body.firstNamePlaceholder ?? '',
      lastNameLabel: body.lastNameLabel ?? '',
      lastNamePlaceholder: body.lastNamePlaceholder ?? '',
      lastNameRequired: body.lastNameRequired === true,
    },
  };
}

function customField(type: CustomType, body: FieldBody, field: string): StoredBookingField {
  if (body.slug === undefined) throw invalidField(`${field}.slug`, 'is required for a custom field');
  if (RESERVED_SLUGS.has(body.slug)) throw invalidField(`${field}.slug`, 'is the slug of a default field: give the custom field another slug', body.slug);
  if (body.label === undefined) throw invalidField(`${field}.label`, 'is required for a custom field');
  if (body.required === undefined) throw invalidField(`${field}.required`, 'is required for a custom field');
  if (WITH_OPTIONS.has(type) && body.options === undefined) throw invalidField(`${field}.options`, `is required for a ${type} field`);
  return {
    slug: body.slug,
    type,
    isDefault: type === 'phone' && body.slug === ATTENDEE_PHONE,
    required: body.required,
    hidden: body.hidden === true,
    disableOnPrefill: body.disableOnPrefill === true,
    label: body.label,
    ...(body.placeholder !== undefined && !WITHOUT_PLACEHOLDER.has(type) ? { placeholder: body.placeholder } : {}),
    ...(WITH_OPTIONS.has(type) ? { options: body.options } : {}),
  };
}

/**
 * The complete field list from the sent one. The sent list replaces every custom field: the result is
 * the default fields (each replaced by its sent version, if any) plus the sent custom fields.
 */
export function parseBookingFields(input: FieldBody[]): StoredBookingField[] {
  const defaults = new Map<string, { field: StoredBookingField; index: number }>();
  const custom: { field: StoredBookingField; index: number }[] = [];
  const slugs = new Set<string>();
  input.forEach((body, index) => {
    const at = `bookingFields.${index}`;
    const bySlug = DEFAULT_SLUGS.find((slug) => slug === body.slug);
    if (bySlug === undefined && body.type === undefined) {
      throw invalidField(`${at}.type`, `is required except for the default fields keyed by slug (${DEFAULT_SLUGS.join(', ')})`);
    }
    if (bySlug !== undefined || body.type === 'name' || body.type === 'splitName' || body.type === 'email') {
      const key = bySlug ?? (body.type === 'email' ? 'email' : 'name');
      if (defaults.has(key)) throw invalidField(bySlug ? `${at}.slug` : `${at}.type`, `repeats the default ${key} field`, bySlug ?? body.type);
      const field = bySlug ? defaultBySlug(bySlug, body) : defaultByType(body.type as 'name' | 'splitName' | 'email', body);
      defaults.set(key, { field, index });
      return;
    }
    const field = customField(body.type as CustomType, body, at);
    if (slugs.has(field.slug)) throw invalidField(`${at}.slug`, 'repeats the slug of another booking field', field.slug);
    slugs.add(field.slug);
    custom.push({ field, index });
  });
  assertBookerCanBeReached(defaults.get('email'), custom);
  const pick = (key: keyof typeof DEFAULT_FIELDS) => defaults.get(key)?.field ?? DEFAULT_FIELDS[key];
  return [
    pick('name'), pick('email'), pick('location'),
    ...custom.map((entry) => entry.field),
    pick('title'), pick('notes'), pick('guests'), pick('rescheduleReason'),
  ];
}

/** The booker must give a visible, required email, or a visible, required attendee phone instead. */
function assertBookerCanBeReached(email: { field: StoredBookingField; index: number } | undefined, custom: { field: StoredBookingField }[]): void {
  if (!email || (email.field.required && !email.field.hidden)) return;
  const phone = custom.find(({ field }) => field.slug === ATTENDEE_PHONE && field.type === 'phone');
  if (phone && phone.field.required && !phone.field.hidden) return;
  const property = email.field.hidden ? 'hidden' : 'required';
  throw invalidField(`bookingFields.${email.index}.${property}`, `the email field must be required and visible unless a required, visible phone field with slug ${ATTENDEE_PHONE} is sent`);
}

/** An event type created without booking fields gets the default ones. */
export function defaultBookingFields(): StoredBookingField[] {
  return parseBookingFields([]);
}

/** `disableGuests` hides (or shows) the guests field; it is the same setting seen from two sides. */
export function withGuestsHidden(fields: StoredBookingField[], hidden: boolean): StoredBookingField[] {
  return fields.map((field) => (field.isDefault && field.slug === 'guests' ? { ...field, hidden } : field));
}

export function guestsDisabled(fields: StoredBookingField[]): boolean {
  return fields.some((field) => field.isDefault && field.slug === 'guests' && field.hidden);
}

function presentField(field: StoredBookingField): FieldOutput {
  const text = { label: field.label, placeholder: field.placeholder };
  if (field.split) {
    return { isDefault: true, type: 'splitName', slug: 'splitName', ...field.split, disableOnPrefill: field.disableOnPrefill };
  }
  if (field.slug === 'location' && field.isDefault) {
    return { isDefault: true, type: field.type, slug: field.slug, required: field.required, hidden: field.hidden, label: field.label };
  }
  if (field.slug === 'name' && field.isDefault) {
    return { isDefault: true, type: field.type, slug: field.slug, required: field.required, ...text, disableOnPrefill: field.disableOnPrefill };
  }
  return {
    isDefault: field.isDefault,
    type: field.type,
    slug: field.slug,
    required: field.required,
    label: !field.isDefault && EMPTY_LABEL_KINDS.has(field.type) ? (field.label ?? '') : field.label,
    placeholder: field.placeholder,
    disableOnPrefill: field.disableOnPrefill,
    hidden: field.hidden,
    ...(field.options ? { options: field.options } : {}),
  };
}

export function presentBookingFields(fields: StoredBookingField[]): FieldOutput[] {
  return fields.map(presentField);
}
