import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { FIELD_TYPES } from './routing-form-model.js';

const Id = (description: string) => Type.Integer({ minimum: 1, maximum: 2147483647, description });
const FormId = Type.String({ minLength: 1, maxLength: 64, description: 'The routing form' });
const Logic = (description: string) => Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description });

export const OrgFormsParams = Type.Object({ orgId: Id('The organization') });
export const OrgFormParams = Type.Object({ orgId: Id('The organization'), routingFormId: FormId });
export const OrgResponseParams = Type.Object({ orgId: Id('The organization'), routingFormId: FormId, responseId: Id('A response') });
export const TeamFormsParams = Type.Object({ orgId: Id('The organization'), teamId: Id('One of its teams') });
export const TeamFormParams = Type.Object({ orgId: Id('The organization'), teamId: Id('One of its teams'), routingFormId: FormId });
export const TeamResponseParams = Type.Object({ orgId: Id('The organization'), teamId: Id('One of its teams'), routingFormId: FormId, responseId: Id('A response') });
export const PublicFormParams = Type.Object({ routingFormId: FormId });

const FieldInput = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Kept when given (answers are stored by field id); made otherwise' })),
  identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'How answers, conditions (answers.<identifier>) and webhooks name the field; made from the label when absent' })),
  label: Type.String({ minLength: 1, maxLength: 500 }),
  type: StringEnum(FIELD_TYPES),
  required: Type.Optional(Type.Boolean()),
  options: Type.Optional(Type.Array(Type.Object({ id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })), label: Type.String({ minLength: 1, maxLength: 500 }) }), { minItems: 1, maxItems: 200 })),
});

const RouteInput = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  condition: Type.Optional(Logic('JsonLogic over the answers ({"var": "answers.<identifier>"}); absent on the fallback route')),
  isFallback: Type.Optional(Type.Boolean({ description: 'The last route, taken when no other matches (exactly one)' })),
  action: Type.Object({
    type: StringEnum(['eventType', 'externalRedirectUrl', 'customPageMessage'] as const),
    eventTypeId: Type.Optional(Id("eventType: one of the team's event types")),
    membersQuery: Type.Optional(Logic('eventType, round robin: JsonLogic keeping the hosts whose attributes (attributes.<slug>) and the answers (answers.<identifier>) satisfy it; absent: every host')),
    url: Type.Optional(Type.String({ maxLength: 2048, description: 'externalRedirectUrl: where to send the visitor' })),
    message: Type.Optional(Type.String({ maxLength: 2000, description: 'customPageMessage: what to show' })),
  }),
});

const formFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  disabled: Type.Optional(Type.Boolean({ description: 'A disabled form takes no responses' })),
  position: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000 })),
  fields: Type.Array(FieldInput, { minItems: 1, maxItems: 50 }),
  routes: Type.Array(RouteInput, { minItems: 1, maxItems: 50 }),
};

export const CreateFormBody = Type.Object(formFields);
export const UpdateFormBody = Type.Object({
  name: Type.Optional(formFields.name),
  description: formFields.description,
  disabled: formFields.disabled,
  position: formFields.position,
  fields: Type.Optional(formFields.fields),
  routes: Type.Optional(formFields.routes),
});

const FieldOutput = Type.Object({
  id: Type.String(),
  identifier: Type.String(),
  label: Type.String(),
  type: Type.String(),
  required: Type.Boolean(),
  options: Type.Optional(Type.Array(Type.Object({ id: Type.String(), label: Type.String() }))),
});
const RouteOutput = Type.Object({
  id: Type.String(),
  condition: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  isFallback: Type.Boolean(),
  action: Type.Record(Type.String(), Type.Unknown()),
});

export const FormOutput = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  position: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  userId: Type.Union([Type.Integer(), Type.Null()]),
  teamId: Type.Integer(),
  disabled: Type.Boolean(),
  fields: Type.Array(FieldOutput),
  routes: Type.Array(RouteOutput),
});

export const ResponseOutput = Type.Object({
  id: Type.Integer(),
  formId: Type.String(),
  formFillerId: Type.String(),
  routedToBookingUid: Type.Union([Type.String(), Type.Null()]),
  response: Type.Record(Type.String(), Type.Object({ label: Type.String(), value: Type.Unknown() })),
  createdAt: Type.String(),
});

const Sort = StringEnum(['asc', 'desc'] as const);
const When = (description: string) => Type.Optional(Type.String({ format: 'date-time', description }));
const listFilters = {
  skip: Type.Optional(Type.Integer({ minimum: 0 })),
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, description: 'At most 250 (default 250)' })),
  sortCreatedAt: Type.Optional(Sort),
  sortUpdatedAt: Type.Optional(Sort),
  afterCreatedAt: When('Created at or after'),
  beforeCreatedAt: When('Created at or before'),
  afterUpdatedAt: When('Updated at or after'),
  beforeUpdatedAt: When('Updated at or before'),
};
export const FormsQuery = Type.Object({
  ...listFilters,
  teamIds: Type.Optional(Type.Array(Type.String({ pattern: '^\\s*[0-9]{1,10}\\s*(,\\s*[0-9]{1,10}\\s*)*$' }), { maxItems: 100, description: "Only these teams' forms (repeated, or separated by commas)" })),
});
export const ResponsesQuery = Type.Object({ ...listFilters, routedToBookingUid: Type.Optional(Type.String({ maxLength: 255 })) });

/** The window of slots a response or calculate-slots answers with (as GET /v2/slots). */
export const SlotsWindowQuery = Type.Object({
  start: Type.Optional(Type.String({ maxLength: 64, description: 'With end: the routed event type\'s slots from this date or instant' })),
  end: Type.Optional(Type.String({ maxLength: 64 })),
  timeZone: Type.Optional(Type.String({ maxLength: 64 })),
  duration: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440 })),
  format: Type.Optional(Type.String({ maxLength: 10 })),
  bookingUidToReschedule: Type.Optional(Type.String({ maxLength: 255 })),
});

export const Answers = Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 50, description: 'Answers keyed by field identifier (or id)' });
export const UpdateResponseBody = Type.Object({ response: Answers });

export const RoutedOutput = Type.Object({
  eventTypeId: Type.Optional(Type.Integer()),
  routing: Type.Optional(Type.Object({ teamMemberIds: Type.Array(Type.Integer()), responseId: Type.Optional(Type.Integer()) })),
  routingCustomMessage: Type.Optional(Type.String()),
  routingExternalRedirectUrl: Type.Optional(Type.String()),
  slots: Type.Optional(Type.Unknown()),
});
