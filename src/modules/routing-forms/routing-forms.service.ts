// Routing forms of organization teams: made and changed through svc's own routes (the reference makes them
// in its web app only), answered by visitors, routed by their answers and the members' attributes, and
// booked with the response (`routing` of POST /v2/bookings), which links the booking to it.
import type { Database, Db } from '../../db/client.js';
import { badRequest, conflict, invalidField, notFound } from '../../lib/errors.js';
import { type MemberValues, memberValues } from '../attributes/attribute-segments.js';
import { attributeSlugsOf, heldValues } from '../attributes/attributes.repository.js';
import type { AvailabilityCache } from '../slots/availability-cache.js';
import { listSlots } from '../slots/slot-listing.service.js';
import { resolveSlotTarget } from '../slots/slots.service.js';
import { slotVariant } from '../slots/slots.versions.js';
import { scheduleFormWorkflows } from '../workflows/workflow-form-reminders.js';
import { emitFormSubmitted } from './routing-form-webhooks.js';
import { type CheckedAnswers, checkAnswers, chooseRoute, type FieldInput, type FormField, type FormRoute, parseFields, parseRoutes, type RouteInput, routedMembers } from './routing-form-model.js';
import * as repo from './routing-forms.repository.js';

export interface FormOwner {
  organizationId: number;
  teamId: number;
}

export interface FormInput {
  name: string;
  description?: string | null | undefined;
  disabled?: boolean | undefined;
  position?: number | undefined;
  fields: FieldInput[];
  routes: RouteInput[];
}

const formNotFound = () => notFound('routing_form_not_found', 'Routing Form not found');

const fieldsOf = (row: repo.RoutingFormRow) => row.fields as FormField[];
const routesOf = (row: repo.RoutingFormRow) => row.routes as FormRoute[];

async function checkedDefinition(db: Db, owner: FormOwner, fields: FieldInput[] | FormField[], routes: RouteInput[] | FormRoute[]) {
  const parsedFields = parseFields(fields);
  const eventTypeIds = await repo.routableEventTypeIds(db, owner.teamId);
  const parsedRoutes = parseRoutes(routes as RouteInput[], parsedFields, await attributeSlugsOf(db, owner.organizationId), (id) => eventTypeIds.has(id));
  return { fields: parsedFields, routes: parsedRoutes };
}

export async function createForm(tx: Db, owner: FormOwner, userId: number, input: FormInput): Promise<repo.RoutingFormRow> {
  const definition = await checkedDefinition(tx, owner, input.fields, input.routes);
  return repo.insertForm(tx, {
    ...owner,
    userId,
    name: input.name,
    description: input.description ?? null,
    disabled: input.disabled ?? false,
    position: input.position ?? 0,
    ...definition,
  });
}

/** The form, if it is one of the organization's (and of `teamId` when given). */
export async function getForm(db: Db, scope: { organizationId: number; teamId?: number | undefined }, id: string, lock = false): Promise<repo.RoutingFormRow> {
  const row = lock ? await repo.lockForm(db, id) : await repo.findForm(db, id);
  if (!row || row.organizationId !== scope.organizationId || (scope.teamId !== undefined && row.teamId !== scope.teamId)) throw formNotFound();
  return row;
}

export async function updateForm(tx: Db, owner: FormOwner, id: string, changes: Partial<FormInput>): Promise<repo.RoutingFormRow> {
  const row = await getForm(tx, owner, id, true);
  // Fields and routes are checked together: new fields against the stored routes, and the reverse.
  const definition = changes.fields !== undefined || changes.routes !== undefined ? await checkedDefinition(tx, owner, changes.fields ?? fieldsOf(row), changes.routes ?? routesOf(row)) : {};
  const set = {
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    ...(changes.disabled !== undefined ? { disabled: changes.disabled } : {}),
    ...(changes.position !== undefined ? { position: changes.position } : {}),
    ...definition,
  };
  return Object.keys(set).length ? repo.updateForm(tx, id, set) : row;
}

export async function deleteForm(tx: Db, owner: FormOwner, id: string): Promise<repo.RoutingFormRow> {
  const row = await getForm(tx, owner, id, true);
  await repo.deleteForm(tx, id);
  return row;
}

export { listForms, listResponses } from './routing-forms.repository.js';

/** Where a set of answers goes, before anything is stored. */
export interface Routing {
  route: FormRoute;
  answers: CheckedAnswers;
  eventTypeId: number | null;
  teamMemberIds: number[] | null;
}

/**
 * Routes the answers: the first matching route, and for an event type its members the route's condition
 * keeps (round robin: among its hosts who take turns; a collective type's hosts all attend).
 */
export async function routeAnswers(db: Db, form: repo.RoutingFormRow, submitted: Record<string, unknown>, cache: AvailabilityCache | null): Promise<Routing> {
  if (form.disabled) throw badRequest('routing_form_disabled', 'This routing form is disabled');
  const answers = checkAnswers(fieldsOf(form), submitted);
  const route = chooseRoute(routesOf(form), answers.values);
  if (route.action.type !== 'eventType') return { route, answers, eventTypeId: null, teamMemberIds: null };
  const eventType = await resolveSlotTarget(db, { kind: 'eventTypeId', eventTypeId: route.action.eventTypeId }, cache);
  const roundRobin = eventType.team?.schedulingType === 'roundRobin';
  const candidates = eventType.hosts.filter((host) => !roundRobin || !host.fixed).map((host) => host.userId);
  const values = await membersValues(db, cache, form.organizationId, candidates);
  const members = roundRobin ? routedMembers(route.action, candidates, (userId) => values.get(userId) ?? {}, answers.values) : candidates;
  return { route, answers, eventTypeId: route.action.eventTypeId, teamMemberIds: members };
}

export interface SlotsQuery {
  start?: string | undefined;
  end?: string | undefined;
  timeZone?: string | undefined;
  duration?: number | undefined;
  format?: string | undefined;
  bookingUidToReschedule?: string | undefined;
}

/** The routed event type's slots for exactly the routed members, printed as GET /v2/slots prints them; null without a window. */
export async function routedSlots(deps: { database: Database; cache: AvailabilityCache; now: number }, routing: Routing, query: SlotsQuery): Promise<unknown> {
  if (routing.eventTypeId === null || query.start === undefined || query.end === undefined) return undefined;
  const variant = slotVariant('2024-09-04');
  const { input, presentation } = variant.toListInput({ ...query, start: query.start, end: query.end, eventTypeId: routing.eventTypeId } as Parameters<typeof variant.toListInput>[0]);
  const list = await listSlots(deps.database.db, deps.cache, { ...input, onlyHostIds: routing.teamMemberIds ?? [] }, deps.now);
  return variant.presentSlots(list, presentation);
}

/** Records a response with where it was routed, and announces it (FORM_SUBMITTED now, FORM_SUBMITTED_NO_EVENT later if unbooked). */
export async function recordResponse(tx: Db, form: repo.RoutingFormRow, routing: Routing, now: number): Promise<repo.ResponseRow> {
  const response = await repo.insertResponse(tx, {
    formId: form.id,
    response: routing.answers.stored,
    routeId: routing.route.id,
    eventTypeId: routing.eventTypeId,
    teamMemberIds: routing.teamMemberIds,
  });
  await emitFormSubmitted(tx, form, response, routing.route, now);
  await scheduleFormWorkflows(tx, form, response, now);
  return response;
}

/** A response (locked until the transaction ends) with its form, for those who act on it later (workflows). */
export async function lockResponseWithForm(tx: Db, responseId: number): Promise<{ form: repo.RoutingFormRow; response: repo.ResponseRow } | null> {
  const response = await repo.lockResponse(tx, responseId);
  const form = response ? await repo.findForm(tx, response.formId) : undefined;
  return response && form ? { form, response } : null;
}

/** PATCH of a response: new answers, checked against the form (where it was routed stays). */
export async function updateResponseAnswers(tx: Db, form: repo.RoutingFormRow, responseId: number, submitted: Record<string, unknown>): Promise<repo.ResponseRow> {
  const row = await repo.findResponse(tx, form.id, responseId);
  if (!row) throw notFound('routing_form_response_not_found', 'Routing form response not found');
  const answers = checkAnswers(fieldsOf(form), submitted);
  return repo.updateResponse(tx, responseId, { response: answers.stored });
}

/**
 * A booking made with a response (`routing` of POST /v2/bookings): the response must be one of the booked
 * event type's team's forms, routed to that event type, not booked yet, and `teamMemberIds` among the
 * members it was routed to. Locked until the booking commits; returns the members the booking may go to.
 */
export async function claimResponse(tx: Db, routing: { responseId: number; teamMemberIds: number[] }, eventType: { id: number; teamId: number | null }): Promise<number[]> {
  const response = await repo.lockResponse(tx, routing.responseId);
  if (!response || eventType.teamId === null || response.teamId !== eventType.teamId) throw notFound('routing_form_response_not_found', `Routing form response ${routing.responseId} not found for this event type`);
  if (response.eventTypeId !== eventType.id) throw invalidField('routing.responseId', `was routed to event type ${response.eventTypeId ?? 'none'}, not ${eventType.id}`, routing.responseId);
  if (response.routedToBookingUid !== null) throw conflict('routing_form_response_booked', `Routing form response ${routing.responseId} already led to booking ${response.routedToBookingUid}`, { property: 'routing.responseId' });
  const routed = new Set(response.teamMemberIds ?? []);
  const outside = routing.teamMemberIds.filter((userId) => !routed.has(userId));
  if (outside.length > 0) throw invalidField('routing.teamMemberIds', `names members the response was not routed to: ${outside.join(', ')}`, outside);
  return routing.teamMemberIds;
}

/** The booking made with the response: the link the response's `routedToBookingUid` shows. */
export async function linkResponse(tx: Db, responseId: number, bookingUid: string): Promise<void> {
  await repo.updateResponse(tx, responseId, { routedToBookingUid: bookingUid });
}

/**
 * A form as visitors reach it, by its id alone (404 for an unknown one), through the availability cache
 * when given: form writes and attribute changes are announced as tenancy changes, which drop it there.
 */
export async function findPublicForm(db: Db, id: string, cache: AvailabilityCache | null = null): Promise<repo.RoutingFormRow> {
  const load = async () => (await repo.findForm(db, id)) ?? null;
  const row = cache ? await cache.profile(`routing-form:${id}`, load, () => [], () => true) : await load();
  if (!row) throw formNotFound();
  return row;
}

/** The members' attribute values a route's condition reads, through the cache when given (dropped on every attribute change). */
async function membersValues(db: Db, cache: AvailabilityCache | null, organizationId: number, userIds: number[]): Promise<Map<number, MemberValues>> {
  const load = async () => memberValues(await heldValues(db, organizationId, userIds));
  return cache ? ((await cache.profile(`attribute-values:${organizationId}:${userIds.join(',')}`, load, () => [], () => true)) ?? new Map()) : load();
}
