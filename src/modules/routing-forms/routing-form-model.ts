// A routing form as svc stores it, and what it does with a set of answers (pure: no I/O). Fields are the
// questions; routes, in order, each a JsonLogic condition over the answers (`answers.<identifier>`) and an
// action: an event type of the form's team (with the members an optional condition over their attributes
// and the answers keeps: `{"==": [{"var": "attributes.region"}, {"var": "answers.region"}]}`), an external
// URL, or a message. The last route is the fallback, taken when no other matches.
import { randomUUID } from 'node:crypto';
import { badRequest, invalidField } from '../../lib/errors.js';
import { assertLogic, type Logic, matcher, satisfies } from '../../lib/json-logic.js';
import { attributeOfVar, lowerAttributeVar, type MemberValues } from '../attributes/attribute-segments.js';

export const FIELD_TYPES = ['text', 'textarea', 'number', 'email', 'phone', 'select', 'multiselect', 'radio', 'checkbox'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
const WITH_OPTIONS: ReadonlySet<FieldType> = new Set(['select', 'multiselect', 'radio', 'checkbox']);
const MANY_VALUES: ReadonlySet<FieldType> = new Set(['multiselect', 'checkbox']);

export interface FormField {
  id: string;
  identifier: string;
  label: string;
  type: FieldType;
  required: boolean;
  options?: { id: string; label: string }[];
}

export type RouteAction =
  | { type: 'eventType'; eventTypeId: number; membersQuery: Logic | null }
  | { type: 'externalRedirectUrl'; url: string }
  | { type: 'customPageMessage'; message: string };

export interface FormRoute {
  id: string;
  /** null on the fallback route. */
  condition: Logic | null;
  isFallback: boolean;
  action: RouteAction;
}

export interface FieldInput {
  id?: string | undefined;
  identifier?: string | undefined;
  label: string;
  type: FieldType;
  required?: boolean | undefined;
  options?: { id?: string | undefined; label: string }[] | undefined;
}

export interface RouteInput {
  id?: string | undefined;
  condition?: Record<string, unknown> | null | undefined;
  isFallback?: boolean | undefined;
  action: { type: string; eventTypeId?: number | undefined; membersQuery?: Record<string, unknown> | null | undefined; url?: string | undefined; message?: string | undefined };
}

const slugOf = (label: string) =>
  label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64) || 'field';

/** The fields as stored: ids kept or made, identifiers unique (made from the label when not given), options for choice fields. */
export function parseFields(input: readonly FieldInput[]): FormField[] {
  const identifiers = new Set<string>();
  const ids = new Set<string>();
  return input.map((field, index) => {
    const at = `fields.${index}`;
    const identifier = field.identifier ?? slugOf(field.label);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(identifier)) throw invalidField(`${at}.identifier`, 'must be 1-64 letters, digits, _ or -', identifier);
    if (identifiers.has(identifier.toLowerCase())) throw invalidField(`${at}.identifier`, `repeats "${identifier}": each field has an identifier of its own`, identifier);
    identifiers.add(identifier.toLowerCase());
    const id = field.id ?? randomUUID();
    if (ids.has(id)) throw invalidField(`${at}.id`, 'repeats the id of another field', id);
    ids.add(id);
    const parsed: FormField = { id, identifier, label: field.label, type: field.type, required: field.required ?? false };
    if (WITH_OPTIONS.has(field.type)) {
      if (!field.options?.length) throw invalidField(`${at}.options`, `is required for a ${field.type} field`);
      const labels = new Set<string>();
      parsed.options = field.options.map((option, optionIndex) => {
        if (labels.has(option.label.toLowerCase())) throw invalidField(`${at}.options.${optionIndex}.label`, 'repeats another option', option.label);
        labels.add(option.label.toLowerCase());
        return { id: option.id ?? randomUUID(), label: option.label };
      });
    } else if (field.options !== undefined) {
      throw invalidField(`${at}.options`, `are only for select, multiselect, radio and checkbox fields, not ${field.type}`);
    }
    return parsed;
  });
}

const answerOfVar = (name: string) => (name.startsWith('answers.') ? name.slice('answers.'.length).toLowerCase() : null);

/**
 * The routes as stored: each with an id, conditions over this form's answers (and, for members, the
 * organization's attributes), an action of a known type, and one fallback, last. `eventTypeOk` says
 * whether an event type id is one of the team's (checked by the caller's store).
 */
export function parseRoutes(input: readonly RouteInput[], fields: readonly FormField[], attributeSlugs: ReadonlySet<string>, eventTypeOk: (id: number) => boolean): FormRoute[] {
  const identifiers = new Set(fields.map((field) => field.identifier.toLowerCase()));
  const readsAnswer = (name: string) => identifiers.has(answerOfVar(name) ?? '\u0000');
  const readsMember = (name: string) => readsAnswer(name) || attributeSlugs.has(attributeOfVar(name) ?? '\u0000');
  if (input.length === 0) throw invalidField('routes', 'must have at least the fallback route');
  const fallbacks = input.filter((route) => route.isFallback === true).length;
  if (fallbacks !== 1 || input.at(-1)!.isFallback !== true) throw invalidField('routes', 'must end with the fallback route (isFallback: true), and have no other');
  return input.map((route, index) => {
    const at = `routes.${index}`;
    const isFallback = route.isFallback === true;
    let condition: Logic | null = null;
    if (isFallback) {
      if (route.condition !== undefined && route.condition !== null) throw invalidField(`${at}.condition`, 'is not for the fallback route: it is taken when no other route matches');
    } else {
      if (route.condition === undefined || route.condition === null) throw invalidField(`${at}.condition`, 'is required on every route but the fallback');
      condition = assertLogic(route.condition, `${at}.condition`, readsAnswer, '"answers.<identifier>" of a field of the form');
    }
    return { id: route.id ?? randomUUID(), condition, isFallback, action: parseAction(route.action, `${at}.action`, readsMember, eventTypeOk) };
  });
}

function parseAction(action: RouteInput['action'], at: string, readsMember: (name: string) => boolean, eventTypeOk: (id: number) => boolean): RouteAction {
  switch (action.type) {
    case 'eventType': {
      if (action.eventTypeId === undefined || !eventTypeOk(action.eventTypeId)) throw invalidField(`${at}.eventTypeId`, "must be one of the team's event types", action.eventTypeId);
      const membersQuery =
        action.membersQuery === undefined || action.membersQuery === null
          ? null
          : assertLogic(action.membersQuery, `${at}.membersQuery`, readsMember, '"answers.<identifier>" of a field or "attributes.<slug>" of an attribute of the organization');
      return { type: 'eventType', eventTypeId: action.eventTypeId, membersQuery };
    }
    case 'externalRedirectUrl': {
      if (!action.url || !/^https?:\/\/[^\s]+$/.test(action.url)) throw invalidField(`${at}.url`, 'must be an http(s) URL', action.url);
      return { type: 'externalRedirectUrl', url: action.url };
    }
    case 'customPageMessage': {
      if (!action.message) throw invalidField(`${at}.message`, 'is required');
      return { type: 'customPageMessage', message: action.message };
    }
    default:
      throw invalidField(`${at}.type`, 'must be eventType, externalRedirectUrl or customPageMessage', action.type);
  }
}

/** An answer as routing reads it: a choice by its label, several choices as a list, a number as a number. */
export type AnswerValue = string | number | string[];

export interface CheckedAnswers {
  /** By identifier (lower case), as conditions read them. */
  values: Record<string, AnswerValue>;
  /** By field id, as the response stores them. */
  stored: Record<string, { label: string; value: AnswerValue }>;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * The submitted answers (keyed by field identifier or id) checked against the fields: required ones given,
 * each of its type, choices among the options (by label or id). A 400 naming `response.<identifier>`.
 */
export function checkAnswers(fields: readonly FormField[], submitted: Record<string, unknown>): CheckedAnswers {
  const byKey = new Map<string, FormField>();
  for (const field of fields) {
    byKey.set(field.identifier.toLowerCase(), field);
    byKey.set(field.id, field);
  }
  const given = new Map<FormField, unknown>();
  for (const [key, value] of Object.entries(submitted)) {
    const field = byKey.get(key) ?? byKey.get(key.toLowerCase());
    if (!field) throw invalidField(`response.${key}`, 'is not a field of the form');
    given.set(field, value);
  }
  const values: CheckedAnswers['values'] = {};
  const stored: CheckedAnswers['stored'] = {};
  for (const field of fields) {
    const at = `response.${field.identifier}`;
    const raw = given.get(field);
    const empty = raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0);
    if (empty) {
      if (field.required) throw invalidField(at, 'is required');
      continue;
    }
    const value = answerValue(field, raw, at);
    values[field.identifier.toLowerCase()] = value;
    stored[field.id] = { label: field.label, value };
  }
  return { values, stored };
}

function answerValue(field: FormField, raw: unknown, at: string): AnswerValue {
  if (WITH_OPTIONS.has(field.type)) {
    const list = MANY_VALUES.has(field.type) ? (Array.isArray(raw) ? raw : [raw]) : [raw];
    if (!MANY_VALUES.has(field.type) && Array.isArray(raw)) throw invalidField(at, 'takes one choice', raw);
    const labels = list.map((item) => {
      const option = field.options!.find((candidate) => candidate.id === item || candidate.label.toLowerCase() === String(item).toLowerCase());
      if (!option) throw invalidField(at, `must be among ${field.options!.map((candidate) => JSON.stringify(candidate.label)).join(', ')}`, item);
      return option.label;
    });
    return MANY_VALUES.has(field.type) ? [...new Set(labels)] : labels[0]!;
  }
  if (typeof raw !== 'string' && typeof raw !== 'number') throw invalidField(at, 'must be text', raw);
  const text = String(raw).trim();
  switch (field.type) {
    case 'number': {
      const number = Number(text);
      if (text === '' || !Number.isFinite(number)) throw invalidField(at, 'must be a number', raw);
      return number;
    }
    case 'email':
      if (!EMAIL.test(text) || text.length > 254) throw invalidField(at, 'must be an email address', raw);
      return text;
    case 'phone':
      if (!E164.test(text)) throw invalidField(at, 'must be a phone number in E.164, e.g. +14155550100', raw);
      return text;
    default:
      if (text.length > (field.type === 'textarea' ? 5000 : 1000)) throw invalidField(at, 'is too long', raw);
      return text;
  }
}

/** The first route whose condition the answers satisfy, else the fallback. */
export function chooseRoute(routes: readonly FormRoute[], values: CheckedAnswers['values']): FormRoute {
  const data = { answers: values };
  const lowerAnswer = (name: string) => (name.startsWith('answers.') ? name.toLowerCase() : name);
  const chosen = routes.find((route) => route.isFallback || (route.condition !== null && satisfies(route.condition, data, lowerAnswer)));
  if (!chosen) throw badRequest('routing_form_without_fallback', 'This routing form has no fallback route');
  return chosen;
}

/** The members an event-type route keeps: those whose attributes (and the answers) satisfy its condition; all without one. */
export function routedMembers(action: Extract<RouteAction, { type: 'eventType' }>, members: readonly number[], valuesOf: (userId: number) => MemberValues, answers: CheckedAnswers['values']): number[] {
  const query = action.membersQuery;
  if (!query) return [...members];
  const keeps = matcher(query, (name) => (name.startsWith('answers.') ? name.toLowerCase() : lowerAttributeVar(name)));
  return members.filter((userId) => keeps({ attributes: valuesOf(userId), answers }));
}
