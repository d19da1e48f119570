import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { EVENT_TYPE_TRIGGERS, FORM_TRIGGERS, RECIPIENTS, STEP_ACTIONS, TEMPLATES, TIME_UNITS } from './workflow-model.js';

const Id = (description: string) => Type.Integer({ minimum: 1, maximum: 2147483647, description });

export const TeamWorkflowsParams = Type.Object({ orgId: Id('The organization'), teamId: Id('One of its teams') });
export const TeamWorkflowParams = Type.Object({ orgId: Id('The organization'), teamId: Id('One of its teams'), workflowId: Id('The workflow') });
export const WorkflowsQuery = Type.Object({
  skip: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 250 })),
});

const Offset = Type.Object({
  value: Type.Integer({ minimum: 0, maximum: 100000, description: 'How many units before or after' }),
  unit: StringEnum(TIME_UNITS),
});

const Trigger = (types: readonly string[]) =>
  Type.Object({
    type: StringEnum(types as readonly [string, ...string[]]),
    offset: Type.Optional(Offset),
  });

const Message = Type.Object({
  subject: Type.String({ maxLength: 1000, description: 'Email subject (variables allowed)' }),
  html: Type.Optional(Type.String({ maxLength: 100_000, description: 'Email body, HTML (sanitized as the calendar-invite templates)' })),
  text: Type.Optional(Type.String({ maxLength: 1600, description: 'SMS or WhatsApp text' })),
});

const Step = (actions: readonly string[]) =>
  Type.Object({
    id: Type.Optional(Id('Update: the step to change (absent: a new step)')),
    stepNumber: Type.Integer({ minimum: 1, maximum: 100 }),
    action: StringEnum(actions as readonly [string, ...string[]]),
    recipient: StringEnum(RECIPIENTS),
    template: StringEnum(TEMPLATES),
    sender: Type.String({ maxLength: 100, description: 'Displayed sender name (email) or SMS sender label' }),
    message: Message,
    verifiedEmailId: Type.Optional(Id('email_address: a verified email of the team')),
    verifiedPhoneId: Type.Optional(Id('sms_number, whatsapp_number: a verified phone number of the team')),
    phoneRequired: Type.Optional(Type.Boolean({ description: 'sms_attendee, whatsapp_attendee: attendees must give a phone number' })),
    includeCalendarEvent: Type.Optional(Type.Boolean({ description: 'Email actions: attach the booking as an .ics event' })),
    autoTranslateEnabled: Type.Optional(Type.Boolean()),
    sourceLocale: Type.Optional(Type.String({ maxLength: 20 })),
  });

const EventTypeActivation = Type.Object({
  isActiveOnAllEventTypes: Type.Optional(Type.Boolean({ default: false })),
  activeOnEventTypeIds: Type.Optional(Type.Array(Id("One of the team's event types"), { maxItems: 500 })),
});
const FormActivation = Type.Object({
  isActiveOnAllRoutingForms: Type.Optional(Type.Boolean({ default: false })),
  activeOnRoutingFormIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 500 })),
});

const FORM_ACTIONS = ['email_attendee', 'email_address', 'sms_attendee', 'sms_number'] as const;

/** A workflow's create body (everything required) and update body (everything optional) of one kind. */
function bodies(activation: typeof EventTypeActivation | typeof FormActivation, triggers: readonly string[], actions: readonly string[]) {
  const fields = {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    activation,
    trigger: Trigger(triggers),
    steps: Type.Array(Step(actions), { minItems: 1, maxItems: 20 }),
  };
  return {
    create: Type.Object(fields),
    update: Type.Object({ name: Type.Optional(fields.name), activation: Type.Optional(fields.activation), trigger: Type.Optional(fields.trigger), steps: Type.Optional(fields.steps) }),
  };
}

const eventTypeBodies = bodies(EventTypeActivation, EVENT_TYPE_TRIGGERS, STEP_ACTIONS);
const formBodies = bodies(FormActivation, FORM_TRIGGERS, FORM_ACTIONS);
export const CreateEventTypeWorkflowBody = eventTypeBodies.create;
export const UpdateEventTypeWorkflowBody = eventTypeBodies.update;
export const CreateFormWorkflowBody = formBodies.create;
export const UpdateFormWorkflowBody = formBodies.update;

const StepOutput = Type.Object({
  id: Type.Integer(),
  stepNumber: Type.Integer(),
  action: Type.String(),
  recipient: Type.String(),
  email: Type.Optional(Type.String()),
  verifiedEmailId: Type.Optional(Type.Integer()),
  phone: Type.Optional(Type.String()),
  verifiedPhoneId: Type.Optional(Type.Integer()),
  phoneRequired: Type.Optional(Type.Boolean()),
  template: Type.String(),
  includeCalendarEvent: Type.Boolean(),
  sender: Type.String(),
  message: Type.Object({ subject: Type.String(), html: Type.Optional(Type.String()), text: Type.Optional(Type.String()) }),
  autoTranslateEnabled: Type.Boolean(),
  sourceLocale: Type.Optional(Type.String()),
});

export const WorkflowOutput = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  userId: Type.Optional(Type.Integer()),
  teamId: Type.Integer(),
  type: StringEnum(['event-type', 'routing-form'] as const),
  activation: Type.Union([
    Type.Object({ isActiveOnAllEventTypes: Type.Boolean(), activeOnEventTypeIds: Type.Array(Type.Integer()) }),
    Type.Object({ isActiveOnAllRoutingForms: Type.Boolean(), activeOnRoutingFormIds: Type.Array(Type.String()) }),
  ]),
  trigger: Type.Object({ type: Type.String(), offset: Type.Optional(Type.Object({ value: Type.Integer(), unit: Type.String() })) }),
  steps: Type.Array(StepOutput),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
