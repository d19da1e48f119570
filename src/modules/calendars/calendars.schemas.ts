import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { MAX_ICS_FEEDS } from './calendars.service.js';

export const SaveIcsFeedBody = Type.Object(
  {
    urls: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
      minItems: 1,
      maxItems: MAX_ICS_FEEDS,
      description: 'http(s) or webcal addresses of iCalendar feeds (a secret address works: it is stored sealed and never shown again).',
    }),
    readOnly: Type.Optional(Type.Boolean({ default: true, description: 'Feeds are only read; kept for the reference’s shape.' })),
  },
  { additionalProperties: false },
);

export const ConnectionOutput = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  userId: Type.Integer(),
  teamId: Type.Null(),
  appId: Type.String(),
  invalid: Type.Boolean(),
});

const CalendarOutput = Type.Object({
  externalId: Type.String(),
  integration: Type.String(),
  name: Type.String(),
  primary: Type.Union([Type.Boolean(), Type.Null()]),
  readOnly: Type.Boolean(),
  isSelected: Type.Boolean(),
  credentialId: Type.Integer(),
  delegationCredentialId: Type.Union([Type.String(), Type.Null()], { description: 'The organization delegation credential the connection was made by (null: connected by its owner).' }),
  sync: Type.Object(
    {
      lastSyncedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      failingSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      failure: Type.Union([Type.String(), Type.Null()]),
      degraded: Type.Boolean({ description: 'true: the calendar cannot be trusted now, and its owner counts as busy where it would apply.' }),
    },
    { description: 'svc: how the calendar’s busy time is kept.' },
  ),
});

export const DestinationCalendarOutput = Type.Object({
  id: Type.Integer(),
  integration: Type.String(),
  externalId: Type.String(),
  primaryEmail: Type.Union([Type.String(), Type.Null()]),
  userId: Type.Integer(),
  eventTypeId: Type.Null(),
  credentialId: Type.Integer(),
  delegationCredentialId: Type.Union([Type.String(), Type.Null()], { description: 'The organization delegation credential the connection was made by (null: connected by its owner).' }),
  name: Type.String(),
  primary: Type.Boolean(),
  readOnly: Type.Boolean(),
  integrationTitle: Type.String(),
});

export const CalendarsOutput = Type.Object({
  connectedCalendars: Type.Array(
    Type.Object({
      integration: Type.Object({
        name: Type.String(),
        type: Type.String(),
        slug: Type.String(),
        title: Type.String(),
        variant: Type.String(),
        categories: Type.Array(Type.String()),
        description: Type.String(),
        logo: Type.String(),
        publisher: Type.String(),
        url: Type.String(),
        email: Type.String(),
        locationOption: Type.Null(),
      }),
      credentialId: Type.Integer(),
      delegationCredentialId: Type.Union([Type.String(), Type.Null()], { description: 'The organization delegation credential the connection was made by (null: connected by its owner).' }),
      invalid: Type.Boolean(),
      primary: Type.Optional(CalendarOutput),
      calendars: Type.Array(CalendarOutput),
    }),
  ),
  destinationCalendar: Type.Union([DestinationCalendarOutput, Type.Null()]),
});

export const BusyTimesQuery = Type.Object(
  {
    loggedInUsersTz: Type.String({ minLength: 1, description: 'IANA time zone the bare dates are read in.' }),
    dateFrom: Type.Optional(Type.String({ description: 'YYYY-MM-DD or an ISO 8601 date-time.' })),
    dateTo: Type.Optional(Type.String({ description: 'YYYY-MM-DD (the whole day is included) or an ISO 8601 date-time.' })),
  },
  { additionalProperties: true, description: 'calendarsToLoad[i][credentialId] and calendarsToLoad[i][externalId] name calendars; none: every selected calendar.' },
);

export const BusyTimesOutput = Type.Array(Type.Object({ start: Type.String({ format: 'date-time' }), end: Type.String({ format: 'date-time' }), source: Type.String() }));

export const DisconnectBody = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'credentialId of the connection' }) }, { additionalProperties: false });

export const CalendarParams = Type.Object({ calendar: Type.String({ minLength: 1, maxLength: 40 }) });

export const CaldavCredentialsBody = Type.Object(
  {
    username: Type.String({ maxLength: 320, description: 'For Apple: the Apple ID email.' }),
    password: Type.String({ maxLength: 1024, description: 'For Apple: an app-specific password. Stored sealed, never shown again.' }),
    serverUrl: Type.Optional(
      Type.String({ maxLength: 2048, description: 'svc: the CalDAV server (Nextcloud, Fastmail, Radicale...). Apple: https://caldav.icloud.com when absent; required for caldav.' }),
    ),
  },
  { additionalProperties: false },
);

export const SelectedCalendarBody = Type.Object(
  {
    integration: Type.String({ minLength: 1, maxLength: 40, description: 'The connection type: apple_calendar, caldav_calendar, ics-feed_calendar...' }),
    externalId: Type.String({ minLength: 1, maxLength: 2048 }),
    credentialId: Type.Integer({ minimum: 1, maximum: 2147483647 }),
    delegationCredentialId: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const SelectedCalendarQuery = Type.Object({
  integration: Type.String({ minLength: 1, maxLength: 40 }),
  externalId: Type.String({ minLength: 1, maxLength: 2048 }),
  credentialId: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  delegationCredentialId: Type.Optional(Type.String()),
});

export const SelectedCalendarOutput = Type.Object({ userId: Type.Integer(), integration: Type.String(), externalId: Type.String(), credentialId: Type.Integer() });

export const ConnectQuery = Type.Object({
  isDryRun: Type.Boolean({ description: 'Accepted for compatibility: the consent URL is the same either way' }),
  redir: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'Where the callback sends the user after connecting (301)' })),
});

export const ConnectOutput = Type.Object({ status: Type.Literal('success'), data: Type.Object({ authUrl: Type.String() }) });

export const SaveQuery = Type.Object({
  state: Type.String({ minLength: 1, maxLength: 4096 }),
  code: Type.String({ minLength: 1, maxLength: 4096 }),
});

export const DestinationCalendarBody = Type.Object(
  {
    integration: StringEnum(['apple_calendar', 'caldav_calendar', 'google_calendar', 'office365_calendar'], { description: 'The connection type of the calendar' }),
    externalId: Type.String({ minLength: 1, maxLength: 2048, description: 'The calendar, as GET /v2/calendars lists it' }),
    delegationCredentialId: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const DestinationCalendarSetOutput = Type.Object({ userId: Type.Integer(), integration: Type.String(), externalId: Type.String(), credentialId: Type.Integer() });
