import type { Static } from 'typebox';
import type { WorkflowOutput } from './workflows.schemas.js';
import type { WorkflowWithSteps } from './workflows.repository.js';

type Step = WorkflowWithSteps['steps'][number];

const presentStep = (step: Step) => ({
  id: step.id,
  stepNumber: step.stepNumber,
  action: step.action,
  recipient: step.recipient,
  ...(step.email !== null ? { email: step.email } : {}),
  ...(step.verifiedEmailId !== null ? { verifiedEmailId: step.verifiedEmailId } : {}),
  ...(step.phone !== null ? { phone: step.phone } : {}),
  ...(step.verifiedPhoneId !== null ? { verifiedPhoneId: step.verifiedPhoneId } : {}),
  ...(step.action.endsWith('_attendee') && !step.action.startsWith('email') ? { phoneRequired: step.phoneRequired } : {}),
  template: step.template,
  includeCalendarEvent: step.includeCalendarEvent,
  sender: step.sender ?? '',
  message: { subject: step.subject, ...(step.html !== null ? { html: step.html } : {}), ...(step.text !== null ? { text: step.text } : {}) },
  autoTranslateEnabled: step.autoTranslateEnabled,
  ...(step.sourceLocale !== null ? { sourceLocale: step.sourceLocale } : {}),
});

export function presentWorkflow(row: WorkflowWithSteps): Static<typeof WorkflowOutput> {
  return {
    id: row.id,
    name: row.name,
    ...(row.userId !== null ? { userId: row.userId } : {}),
    teamId: row.teamId,
    type: row.type,
    activation:
      row.type === 'event-type'
        ? { isActiveOnAllEventTypes: row.activeOnAll, activeOnEventTypeIds: row.eventTypeIds }
        : { isActiveOnAllRoutingForms: row.activeOnAll, activeOnRoutingFormIds: row.routingFormIds },
    trigger: { type: row.trigger, ...(row.offsetValue !== null && row.offsetUnit !== null ? { offset: { value: row.offsetValue, unit: row.offsetUnit } } : {}) },
    steps: row.steps.map(presentStep),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
