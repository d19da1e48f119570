import { Type, type Static } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { invalidField } from '../../lib/errors.js';
import type { CalendarInviteMode, CalendarInvites, EventTypeSettings, SvcVideoSettings } from './event-type-model.js';
import { sanitizeTemplate } from '../calendar-invites/sanitize-template.js';

/** Booking-interface languages (spec 2.1.3); "" means the visitor's browser language. */
export const INTERFACE_LANGUAGES = [
  '', 'en', 'ar', 'az', 'bg', 'bn', 'ca', 'cs', 'da', 'de', 'el', 'es', 'es-419', 'eu', 'et', 'fi', 'fr', 'he', 'hu',
  'it', 'ja', 'km', 'ko', 'nl', 'no', 'pl', 'pt-BR', 'pt', 'ro', 'ru', 'sk-SK', 'sr', 'sv', 'tr', 'uk', 'vi', 'zh-CN', 'zh-TW',
] as const;

/** Variables an event-name template may use (spec 2.1 `customName`), matched case-insensitively as the reference does. */
const CUSTOM_NAME_VARIABLES = [
  '{Event type title}', '{Organiser}', '{Scheduler}', '{Location}', '{Organiser first name}', '{Scheduler first name}',
  '{Scheduler last name}', '{Event duration}', '{LOCATION}', '{HOST/ATTENDEE}', '{HOST}', '{ATTENDEE}', '{USER}',
];
const KNOWN_VARIABLES = new Set(CUSTOM_NAME_VARIABLES.map((variable) => variable.toLowerCase()));

const Hex = Type.String({ pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', description: '#rgb or #rrggbb' });
const LAYOUTS = ['month', 'week', 'column'] as const;
const Flag = (description?: string) => Type.Optional(Type.Boolean(description ? { description } : {}));

export const ColorInput = Type.Object({ lightThemeHex: Hex, darkThemeHex: Hex }, { description: 'Event type colour in the light and dark themes' });

export const BookerLayoutsInput = Type.Object(
  {
    defaultLayout: StringEnum(LAYOUTS, { description: 'Must be one of enabledLayouts' }),
    enabledLayouts: Type.Array(StringEnum(LAYOUTS), { minItems: 1, maxItems: 3, uniqueItems: true }),
  },
  { description: 'Booking-page layouts the booker may pick, and the one shown first' },
);

export const SvcVideoSettingsInput = Type.Object(
  {
    disableRecordingForOrganizer: Flag(),
    disableRecordingForGuests: Flag(),
    redirectUrlOnExit: Type.Optional(Type.Union([Type.String({ format: 'uri', maxLength: 2048 }), Type.Null()], { description: 'Where participants go when they leave the call' })),
    enableAutomaticRecordingForOrganizer: Flag(),
    enableAutomaticTranscription: Flag(),
    disableTranscriptionForGuests: Flag(),
    disableTranscriptionForOrganizer: Flag(),
    sendTranscriptionEmails: Flag('Default true'),
  },
  { description: 'Built-in video settings; keys not sent keep their value' },
);

export const DisableCancellingInput = Type.Object({ disabled: Flag('true: bookings of this event type cannot be cancelled') });

export const DisableReschedulingInput = Type.Object(
  {
    disabled: Flag('true: rescheduling is always disabled'),
    minutesBefore: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Rescheduling is disabled within this many minutes of the start; only with disabled false or absent' })),
  },
  { description: 'Always disabled, or disabled within minutesBefore of the meeting' },
);

export const DestinationCalendarInput = Type.Object(
  { integration: Type.String({ minLength: 1, maxLength: 255 }), externalId: Type.String({ minLength: 1, maxLength: 1024 }) },
  { description: 'A connected calendar new bookings are written to' },
);

const InviteAudience = Type.Object({
  mode: StringEnum(['inherit', 'standard', 'custom'] as const, { description: 'inherit: organization default, else standard; standard; custom: template' }),
  template: Type.Optional(Type.String({ maxLength: 5000, description: 'custom mode: description template; HTML tags are stripped' })),
});

export const CalendarInvitesInput = Type.Object(
  { host: Type.Optional(InviteAudience), guest: Type.Optional(InviteAudience) },
  { description: 'Write-only (spec 2.9), accepted with svc-api-version 2024-06-14 or 2026-06-12; never returned by event-type reads' },
);

/** The settings fields of the 2024-06-14 body, shared by create and update. */
export const SettingsFields = {
  requiresBookerEmailVerification: Flag(),
  hideCalendarNotes: Flag(),
  lockTimeZoneToggleOnBookingPage: Flag(),
  color: Type.Optional(ColorInput),
  customName: Type.Optional(Type.String({ maxLength: 1000, description: `Event-name template; variables: ${CUSTOM_NAME_VARIABLES.join(' ')}` })),
  useDestinationCalendarEmail: Flag('Send from the destination calendar\'s address; needs a connected primary calendar'),
  hideCalendarEventDetails: Flag(),
  successRedirectUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'An http(s) URL the booker is sent to after booking' })),
  hideOrganizerEmail: Flag(),
  svcVideoSettings: Type.Optional(SvcVideoSettingsInput),
  disableCancelling: Type.Optional(DisableCancellingInput),
  disableRescheduling: Type.Optional(DisableReschedulingInput),
  interfaceLanguage: Type.Optional(StringEnum(INTERFACE_LANGUAGES, { description: 'Booking-interface language; "" means the visitor\'s browser language' })),
  allowReschedulingPastBookings: Flag('Default false'),
  allowReschedulingCancelledBookings: Flag('Default false'),
  privateNoteEnabled: Flag('Default false: a host-only private note event next to each booking'),
  privateNoteMode: Type.Optional(StringEnum(['duplicate_event'] as const)),
  privateNoteTemplate: Type.Optional(Type.String({ maxLength: 5000, description: 'Variables: {Attendee name} {Event type title} {Location} {Host name} {Event duration} and booking-field names' })),
  bookerLayouts: Type.Optional(BookerLayoutsInput),
};

type SettingsBody = { [K in keyof typeof SettingsFields]?: Static<(typeof SettingsFields)[K]> };

export function parseCustomName(value: string): string {
  for (const variable of value.match(/\{[^}]*\}/g) ?? []) {
    if (!KNOWN_VARIABLES.has(variable.toLowerCase())) {
      throw invalidField('customName', `uses the unknown variable ${variable}; allowed: ${CUSTOM_NAME_VARIABLES.join(' ')}`, value);
    }
  }
  return value;
}

function parseDisableRescheduling(input: Static<typeof DisableReschedulingInput>): Pick<EventTypeSettings, 'disableRescheduling' | 'minimumRescheduleNotice'> {
  if (input.disabled === true && input.minutesBefore !== undefined) {
    throw invalidField('disableRescheduling.minutesBefore', 'only applies when disabled is false or absent', input.minutesBefore);
  }
  return { disableRescheduling: input.disabled === true, minimumRescheduleNotice: input.minutesBefore ?? null };
}

/** The sent settings; keys not sent are absent, so an update keeps them. */
export function parseSettings(body: SettingsBody): Partial<EventTypeSettings> & { svcVideoSettingsPatch?: Partial<SvcVideoSettings> } {
  const { customName, successRedirectUrl, svcVideoSettings, disableCancelling, disableRescheduling, bookerLayouts, ...flags } = body;
  if (successRedirectUrl !== undefined && !/^https?:\/\//i.test(successRedirectUrl)) throw invalidField('successRedirectUrl', 'must be an http(s) URL', successRedirectUrl);
  if (bookerLayouts && !bookerLayouts.enabledLayouts.includes(bookerLayouts.defaultLayout)) {
    throw invalidField('bookerLayouts.defaultLayout', 'must be one of enabledLayouts', bookerLayouts.defaultLayout);
  }
  const { sendTranscriptionEmails, ...video } = svcVideoSettings ?? {};
  return {
    ...flags,
    ...(customName !== undefined ? { customName: parseCustomName(customName) } : {}),
    ...(successRedirectUrl !== undefined ? { successRedirectUrl } : {}),
    ...(svcVideoSettings && Object.keys(video).length > 0 ? { svcVideoSettingsPatch: video } : {}),
    ...(sendTranscriptionEmails !== undefined ? { sendTranscriptionEmails } : {}),
    ...(disableCancelling ? { disableCancelling: disableCancelling.disabled === true } : {}),
    ...(disableRescheduling ? parseDisableRescheduling(disableRescheduling) : {}),
    ...(bookerLayouts ? { bookerLayouts } : {}),
  };
}

const NO_VIDEO_SETTINGS: SvcVideoSettings = {
  disableRecordingForOrganizer: false,
  disableRecordingForGuests: false,
  redirectUrlOnExit: null,
  enableAutomaticRecordingForOrganizer: false,
  enableAutomaticTranscription: false,
  disableTranscriptionForGuests: false,
  disableTranscriptionForOrganizer: false,
};

/** Applies sent settings to stored ones; built-in video settings merge key by key, as the reference's upsert does. */
export function applySettings(current: EventTypeSettings, sent: ReturnType<typeof parseSettings>): EventTypeSettings {
  const { svcVideoSettingsPatch, ...rest } = sent;
  return {
    ...current,
    ...rest,
    ...(svcVideoSettingsPatch ? { svcVideoSettings: { ...(current.svcVideoSettings ?? NO_VIDEO_SETTINGS), ...svcVideoSettingsPatch } } : {}),
  };
}


/**
 * Spec 2.9: HTML tags are stripped; a custom template left empty becomes `inherit` here, and
 * `standard` once written if the event type has no organization to inherit from
 * (`settleEmptiedInvites`), which `emptiedInviteAudiences` names.
 */
export function parseCalendarInvites(input: Static<typeof CalendarInvitesInput>): CalendarInvites {
  const audience = (sent: { mode: CalendarInviteMode; template?: string | undefined }) => {
    if (sent.mode !== 'custom') return { mode: sent.mode, template: null };
    const template = sanitizeTemplate(sent.template ?? '');
    return template ? { mode: 'custom' as const, template } : { mode: 'inherit' as const, template: null };
  };
  return { ...(input.host ? { host: audience(input.host) } : {}), ...(input.guest ? { guest: audience(input.guest) } : {}) };
}

/** The audiences whose custom template sanitization emptied: sent as `custom`, parsed as `inherit`. */
export function emptiedInviteAudiences(input: Static<typeof CalendarInvitesInput>, parsed: CalendarInvites): ('host' | 'guest')[] {
  return (['host', 'guest'] as const).filter((audience) => input[audience]?.mode === 'custom' && parsed[audience]?.mode === 'inherit');
}

/** A patch changes only the audiences it names. */
export function applyCalendarInvites(current: CalendarInvites | null, sent: CalendarInvites): CalendarInvites {
  return { ...(current ?? {}), ...sent };
}
