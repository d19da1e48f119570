import type { Static } from 'typebox';
import type { Routing } from './routing-forms.service.js';
import type { ResponseRow, RoutingFormRow } from './routing-forms.repository.js';
import type { FormOutput, ResponseOutput, RoutedOutput } from './routing-forms.schemas.js';

export const presentForm = (row: RoutingFormRow): Static<typeof FormOutput> => ({
  id: row.id,
  name: row.name,
  description: row.description,
  position: row.position,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  userId: row.userId,
  teamId: row.teamId,
  disabled: row.disabled,
  fields: row.fields as Static<typeof FormOutput>['fields'],
  routes: row.routes as Static<typeof FormOutput>['routes'],
});

export const presentResponse = (row: ResponseRow): Static<typeof ResponseOutput> => ({
  id: row.id,
  formId: row.formId,
  formFillerId: row.formFillerId,
  routedToBookingUid: row.routedToBookingUid,
  response: row.response,
  createdAt: row.createdAt.toISOString(),
});

/** Where the answers were sent: an event type with its members (and slots when a window was asked), a message, or a page. */
export function presentRouted(routing: Routing, responseId: number | null, slots: unknown): Static<typeof RoutedOutput> {
  const { action } = routing.route;
  if (action.type === 'customPageMessage') return { routingCustomMessage: action.message };
  if (action.type === 'externalRedirectUrl') return { routingExternalRedirectUrl: action.url };
  return {
    eventTypeId: action.eventTypeId,
    routing: { teamMemberIds: routing.teamMemberIds ?? [], ...(responseId === null ? {} : { responseId }) },
    ...(slots === undefined ? {} : { slots }),
  };
}
