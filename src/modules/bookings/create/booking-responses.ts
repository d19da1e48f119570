import { fieldRejected, invalidField } from '../../../lib/errors.js';
import type { StoredBookingField, StoredLocation } from '../../event-types/event-type-model.js';

/** What the booker sent, before it is checked against the event type's booking form. */
export interface BookerInput {
  attendee: { name: string; email?: string | undefined; phoneNumber?: string | undefined };
  bookingFieldsResponses: Record<string, unknown>;
  guests: string[];
  location?: LocationChoice | undefined;
}

export type LocationChoice =
  | { type: 'address' | 'link' | 'phone' | 'organizersDefaultApp' }
  | { type: 'attendeeAddress'; address?: string | undefined }
  | { type: 'attendeePhone'; phone?: string | undefined }
  | { type: 'attendeeDefined'; location?: string | undefined }
  | { type: 'integration'; integration?: string | undefined };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const E164 = /^\+[1-9]\d{6,14}$/;
const ATTENDEE_PHONE = 'attendeePhoneNumber';
/** Fields the API fills from other inputs (attendee, guests, location), not from bookingFieldsResponses. */
const FILLED_ELSEWHERE = new Set(['name', 'email', 'guests', 'location', 'rescheduleReason']);

/** The JSON type a field's answer must have, as the reference names it in its messages. */
function expectedType(field: StoredBookingField): 'string' | 'number' | 'boolean' | 'array' {
  switch (field.type) {
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'multiselect':
    case 'checkbox':
    case 'multiemail':
      return 'array';
    default:
      return 'string';
  }
}

/**
 * Size bounds of the answers. A long-text (textarea) answer: the reference's own limit (its form
 * builder's textarea `maxLength` default, 1000). Other text answers and the whole of
 * bookingFieldsResponses: the reference sets none; these are far above any real booking, and keep
 * what an anonymous booker can store, and have copied into every webhook delivery, small.
 */
export const MAX_TEXTAREA_ANSWER_LENGTH = 1000;
export const MAX_TEXT_ANSWER_LENGTH = 5000;
export const MAX_ANSWER_ITEMS = 100;
export const MAX_RESPONSES_JSON_LENGTH = 65_536;

/**
 * Guests of one booking, however they came (the booking request or POST /v2/bookings/{uid}/guests).
 * Every guest is mailed on every change, so guests are what one anonymous request multiplies its mail
 * by; the reference sets no bound. Ten, as the reference's own limit on guests added at once and as
 * common booking pages allow.
 */
export const MAX_GUESTS_PER_BOOKING = 10;

const typeOf = (value: unknown) => (Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value);
const isEmpty = (value: unknown) => value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

function checkAnswer(field: StoredBookingField, value: unknown): unknown {
  const property = `bookingFieldsResponses.${field.slug}`;
  const expected = expectedType(field);
  if (typeOf(value) !== expected) {
    throw fieldRejected(property, 'invalid_booking_field_type', `Invalid type for booking field '${field.slug}'. Expected type ${expected} (compatible with field type '${field.type}'), but received ${typeOf(value)}.`, value);
  }
  if (expected === 'array' && (value as unknown[]).some((item) => typeof item !== 'string')) {
    throw fieldRejected(property, 'invalid_booking_field_type', `Invalid type for booking field '${field.slug}'. Expected an array of strings.`, value);
  }
  const maxLength = field.type === 'textarea' ? MAX_TEXTAREA_ANSWER_LENGTH : MAX_TEXT_ANSWER_LENGTH;
  if (typeof value === 'string' && value.length > maxLength) throw invalidField(property, `must be at most ${maxLength} characters long (it has ${value.length})`);
  if (Array.isArray(value)) {
    if (value.length > MAX_ANSWER_ITEMS) throw invalidField(property, `must have at most ${MAX_ANSWER_ITEMS} items (it has ${value.length})`);
    if (value.some((item: string) => item.length > MAX_TEXT_ANSWER_LENGTH)) throw invalidField(property, `must hold items of at most ${MAX_TEXT_ANSWER_LENGTH} characters`);
  }
  const options = field.options ?? [];
  if ((field.type === 'select' || field.type === 'radio') && !options.includes(value as string)) {
    throw fieldRejected(property, 'invalid_booking_field_option', `Invalid option '${String(value)}' for booking field '${field.slug}'. Allowed options are: ${options.join(', ')}.`, value);
  }
  if ((field.type === 'multiselect' || field.type === 'checkbox') && (value as string[]).some((item) => !options.includes(item))) {
    throw fieldRejected(property, 'invalid_booking_field_option', `One or more invalid options for booking field '${field.slug}'. Allowed options are: ${options.join(', ')}.`, value);
  }
  if (field.type === 'multiemail' && (value as string[]).some((item) => !EMAIL.test(item))) throw invalidField(property, 'must hold valid email addresses', value);
  if (field.type === 'phone' && !E164.test(value as string)) throw invalidField(property, 'must be a phone number in international (E.164) format, e.g. +37120993151', value);
  if (field.type === 'url' && !/^https?:\/\/\S+$/i.test(value as string)) throw invalidField(property, 'must be an http(s) URL', value);
  if (field.type === 'number' && !Number.isFinite(value)) throw invalidField(property, 'must be a finite number', value);
  return value;
}

function missing(field: StoredBookingField, eventTypeId: number) {
  if (field.slug === ATTENDEE_PHONE) {
    return fieldRejected('attendee.phoneNumber', 'missing_attendee_phone', 'Missing attendee phone number - it is required by the event type. Pass it as "attendee.phoneNumber" string in the request.');
  }
  return fieldRejected(
    `bookingFieldsResponses.${field.slug}`,
    'missing_booking_field',
    `Missing required booking field response: ${field.slug} - it is required by the event type booking fields, but missing in the bookingFieldsResponses. You can fetch the event type with ID ${eventTypeId} to see the required fields.`,
  );
}

/**
 * The booking-form answers as stored (`bookingFieldsResponses`): name and email from the attendee,
 * guests, the location chosen, and each form field's answer, checked against the event type's form.
 * Answers to fields the form does not have are left out; hidden fields are never required.
 */
export function bookingResponses(fields: readonly StoredBookingField[], input: BookerInput, location: ResolvedLocation | null, eventTypeId: number): Record<string, unknown> {
  const emailField = fields.find((field) => field.isDefault && field.slug === 'email');
  const email = input.attendee.email;
  if (email === undefined && (emailField ? emailField.required && !emailField.hidden : true)) {
    throw fieldRejected('attendee.email', 'missing_attendee_email', 'attendee.email is required by the event type (only a required attendee phone field can replace it).');
  }
  const responses: Record<string, unknown> = { name: input.attendee.name };
  if (email !== undefined) responses.email = email;
  const guestsField = fields.find((field) => field.isDefault && field.slug === 'guests');
  if (input.guests.length > 0) {
    if (!guestsField || guestsField.hidden) throw invalidField('guests', 'are not allowed: the event type disables guests', input.guests);
    responses.guests = input.guests;
  }
  if (location) responses.location = { value: location.type, optionValue: location.value ?? '' };
  for (const field of fields) {
    if (FILLED_ELSEWHERE.has(field.slug) && field.isDefault) continue;
    const value = field.slug === ATTENDEE_PHONE && input.attendee.phoneNumber !== undefined ? input.attendee.phoneNumber : input.bookingFieldsResponses[field.slug];
    if (isEmpty(value)) {
      if (field.required && !field.hidden) throw missing(field, eventTypeId);
      continue;
    }
    responses[field.slug] = checkAnswer(field, value);
  }
  // Counted on the input: answers to fields the form lacks are dropped, but still arrive with each request.
  const total = JSON.stringify(input.bookingFieldsResponses).length;
  if (total > MAX_RESPONSES_JSON_LENGTH) throw invalidField('bookingFieldsResponses', `must be at most ${MAX_RESPONSES_JSON_LENGTH} characters long as JSON in all (it has ${total})`);
  return responses;
}

/** A location as the booking stores it: the kind chosen and the text printed as the booking's `location`. */
export interface ResolvedLocation {
  type: string;
  value: string | null;
}

function describeLocation(location: StoredLocation): ResolvedLocation {
  switch (location.type) {
    case 'address':
      return { type: 'address', value: location.address };
    case 'link':
      return { type: 'link', value: location.link };
    case 'phone':
      return { type: 'phone', value: location.phone };
    case 'integration':
      return { type: 'integration', value: `integrations:${location.integration}` };
    default:
      return { type: location.type, value: null };
  }
}

/**
 * The location of a new booking: the one the booker chose among the event type's locations, or the
 * event type's first one (the built-in video app unless the owner set others).
 */
export function resolveLocation(locations: readonly StoredLocation[], choice: LocationChoice | undefined, eventTypeId: number): ResolvedLocation | null {
  if (!choice) return locations[0] ? describeLocation(locations[0]) : null;
  const offered = locations.filter((location) => location.type === choice.type);
  const refuse = () =>
    fieldRejected(
      'location',
      'location_not_offered',
      `Booking location with type ${choice.type} not valid for event type with id=${eventTypeId}. The event type has following location types: ${[...new Set(locations.map((location) => location.type))].join(', ')}, and only these types are allowed for booking location.`,
      choice,
    );
  if (offered.length === 0) throw refuse();
  switch (choice.type) {
    case 'attendeeAddress':
      if (!choice.address) throw invalidField('location.address', 'is required for an attendeeAddress location');
      return { type: choice.type, value: choice.address };
    case 'attendeePhone':
      if (!choice.phone || !E164.test(choice.phone)) throw invalidField('location.phone', 'must be a phone number in international (E.164) format', choice.phone);
      return { type: choice.type, value: choice.phone };
    case 'attendeeDefined':
      if (!choice.location) throw invalidField('location.location', 'is required for an attendeeDefined location');
      return { type: choice.type, value: choice.location };
    case 'integration': {
      const match = offered.find((location) => location.type === 'integration' && location.integration === choice.integration);
      if (!match) throw refuse();
      return describeLocation(match);
    }
    default:
      return describeLocation(offered[0]!);
  }
}
