import type { FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { App } from '../../../http/app.js';
import type { AppContext } from '../../../app/context.js';
import { access } from '../../../http/access.js';
import { versionHeaderSchema } from '../../../http/api-version.js';
import { Envelope, ok } from '../../../http/envelope.js';
import { runMutation } from '../../../http/mutation.js';
import { principalOf } from '../../../http/request-guard.js';
import { StringEnum } from '../../../http/schema-types.js';
import { Locale } from '../../users/users.schemas.js';
import { addGuests, bookingCalendarLinks, bookingReferences, type Caller, markAbsent, REFERENCE_TYPES, updateLocation } from './booking-details.service.js';
import { BookingData_2024_08_13, BookingUidParams } from '../bookings.schemas.js';
import { bookingRecordings, bookingTranscripts, conferencingSessions, type VideoCaller } from '../../conferencing/video-sessions.service.js';
import { bookingVariant, bookingWriteHeaders, newRouteHeaders, routeExistsForVersion } from '../bookings.versions.js';

const readHeaders = versionHeaderSchema('2024-08-13');
const Email = Type.String({ format: 'email', maxLength: 254 });
const Text = (maxLength: number, description: string) => Type.Optional(Type.String({ maxLength, description }));

const MarkAbsentBody = Type.Object({
  host: Type.Optional(Type.Boolean({ description: 'true: the host did not show up' })),
  attendees: Type.Optional(Type.Array(Type.Object({ email: Email, absent: Type.Boolean() }), { minItems: 1, maxItems: 100, description: 'Attendees by email' })),
});

const AddGuestsBody = Type.Object({
  guests: Type.Array(
    Type.Object({
      email: Email,
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Default: the email' })),
      timeZone: Type.Optional(Type.String({ format: 'time-zone', description: "IANA time zone; default: the booker's" })),
      phoneNumber: Type.Optional(Type.String({ pattern: '^\\+[1-9]\\d{6,14}$', description: 'E.164, e.g. +37120993151' })),
      language: Type.Optional(Locale),
    }),
    { minItems: 1, description: 'At most 10 per request and 30 attendees per booking; emails already attending are skipped' },
  ),
});

const UpdateLocationBody = Type.Object({
  location: Type.Optional(
    Type.Object(
      {
        type: Type.String({ maxLength: 50, description: 'address, link, phone, attendeeAddress, attendeePhone or attendeeDefined' }),
        address: Text(500, 'address, attendeeAddress: where to meet'),
        link: Text(2048, 'link: an http(s) meeting URL'),
        phone: Text(32, 'phone, attendeePhone: E.164 number'),
        location: Text(500, 'attendeeDefined: any place'),
      },
      { description: 'The new location; hosts and attendees are mailed a revised invitation' },
    ),
  ),
});

export const ReferencesQuery = Type.Object({ type: Type.Optional(StringEnum(REFERENCE_TYPES, { description: 'Only references of this type' })) });

const CalendarLinksOutput = Envelope(Type.Array(Type.Object({ label: Type.String(), link: Type.String() })));
export const ReferencesOutput = Envelope(
  Type.Array(Type.Object({ id: Type.Integer(), type: Type.String(), eventUid: Type.String(), destinationCalendarId: Type.Union([Type.String(), Type.Null()]) })),
);

const SessionsOutput = Envelope(
  Type.Array(
    Type.Object({
      id: Type.String(),
      room: Type.String(),
      startTime: Type.Number({ description: 'Epoch seconds' }),
      duration: Type.Number({ description: 'Seconds' }),
      ongoing: Type.Boolean(),
      maxParticipants: Type.Number(),
      participants: Type.Array(Type.Object({ userId: Type.Optional(Type.String()), userName: Type.Optional(Type.String()), joinTime: Type.Number(), duration: Type.Number() })),
    }),
  ),
);
const RecordingsOutput = Envelope(
  Type.Array(
    Type.Object({
      id: Type.String(),
      roomName: Type.String(),
      startTs: Type.Number({ description: 'Epoch seconds' }),
      status: Type.String(),
      maxParticipants: Type.Optional(Type.Number()),
      duration: Type.Number({ description: 'Seconds' }),
      shareToken: Type.String(),
      downloadLink: Type.Optional(Type.String()),
      error: Type.Optional(Type.String()),
    }),
  ),
);

const videoCallerOf = (request: FastifyRequest) => {
  const { user } = principalOf(request);
  return { id: user.id, systemAdmin: user.role === 'ADMIN' };
};

const callerOf = (request: FastifyRequest): Caller => {
  const { user } = principalOf(request);
  return { id: user.id, attendeeEmail: user.verifiedEmail };
};

export function registerBookingDetailRoutes(app: App, ctx: AppContext): void {
  const tags = ['Bookings'];
  const present = (request: FastifyRequest, record: Parameters<ReturnType<typeof bookingVariant>['present']>[0]) =>
    bookingVariant(request.apiVersion).present(record, principalOf(request).user.id);

  app.post('/v2/bookings/:bookingUid/mark-absent', {
    config: { access: access.user('BOOKING_WRITE') },
    schema: {
      tags,
      summary: 'Mark a booking absence',
      description: "The booking's organizer marks the host and/or attendees absent (or present again), once the booking has started. Send Idempotency-Key to make retries safe.",
      headers: bookingWriteHeaders,
      params: BookingUidParams,
      body: MarkAbsentBody,
      response: { 200: Envelope(BookingData_2024_08_13) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => {
        const record = await markAbsent({ tx, listener: ctx.bookingEvents }, callerOf(request), request.params.bookingUid, request.body, ctx.clock());
        return { status: 200, body: ok(present(request, record)) };
      }),
  });

  app.post('/v2/bookings/:bookingUid/guests', {
    config: { access: access.user('BOOKING_WRITE') },
    onRequest: routeExistsForVersion,
    schema: {
      tags,
      summary: 'Add guests to a booking',
      description:
        'The organizer or an attendee adds guests (at most 10 at a time, 30 attendees in all); emails already attending are skipped. Not for seated bookings or event types that disable guests. Needs svc-api-version 2024-08-13 (404 without it).',
      headers: newRouteHeaders,
      params: BookingUidParams,
      body: AddGuestsBody,
      response: { 200: Envelope(BookingData_2024_08_13) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => {
        const record = await addGuests({ tx, listener: ctx.bookingEvents }, callerOf(request), request.params.bookingUid, request.body.guests);
        return { status: 200, body: ok(present(request, record)) };
      }),
  });

  app.patch('/v2/bookings/:bookingUid/location', {
    config: { access: access.user('BOOKING_WRITE') },
    onRequest: routeExistsForVersion,
    schema: {
      tags,
      summary: 'Update a booking location',
      description:
        "The organizer changes where the booking happens (the booking's location and its location answer); hosts and attendees are mailed a revised invitation. Without a location the booking is returned unchanged. Needs svc-api-version 2024-08-13 (404 without it).",
      headers: newRouteHeaders,
      params: BookingUidParams,
      body: UpdateLocationBody,
      response: { 200: Envelope(BookingData_2024_08_13) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => {
        const record = await updateLocation({ tx, listener: ctx.bookingEvents }, callerOf(request), request.params.bookingUid, request.body.location);
        return { status: 200, body: ok(present(request, record)) };
      }),
  });

  app.get('/v2/bookings/:bookingUid/calendar-links', {
    config: { access: access.user('BOOKING_READ') },
    schema: {
      tags,
      summary: "Get 'Add to Calendar' links for a booking",
      description: 'For the organizer and attendees: links that add the booking to Google Calendar, Microsoft Office and Microsoft Outlook, and an iCalendar file (ICS) as a data: URL.',
      headers: readHeaders,
      params: BookingUidParams,
      response: { 200: CalendarLinksOutput },
    },
    handler: async (request) => ok(await bookingCalendarLinks(ctx.database.db, callerOf(request), request.params.bookingUid)),
  });

  const videoAccess = 'For the organizer, a host of its event type, an admin or owner of its team or organization, or the system admin.';
  const onDaily = 'Only bookings on the built-in video with Daily (SVC_DAILY_API_KEY) have any; every other booking answers an empty list.';

  const videoRoute = <T>(path: string, summary: string, description: string, output: TSchema, read: (deps: AppContext, caller: VideoCaller, uid: string) => Promise<T>) =>
    app.get(`/v2/bookings/:bookingUid/${path}`, {
      config: { access: access.user('BOOKING_READ') },
      schema: { tags, summary, description: `${description} ${onDaily} ${videoAccess}`, headers: readHeaders, params: BookingUidParams, response: { 200: output } },
      handler: async (request) => ok(await read(ctx, videoCallerOf(request), request.params.bookingUid)),
    });
  videoRoute(
    'conferencing-sessions',
    'Get Video Meeting Sessions. Only supported for Svc Video',
    "The meeting sessions of the booking's video room, as Daily reports them (times in epoch seconds, durations in seconds).",
    SessionsOutput,
    conferencingSessions,
  );
  videoRoute(
    'recordings',
    'Get all the recordings for the booking',
    "The recordings of the booking's video room; a finished one has a download link Daily signs for a limited time (or `error` when Daily would not give one).",
    RecordingsOutput,
    bookingRecordings,
  );
  videoRoute(
    'transcripts',
    'Get Svc Video real time transcript download links for the booking',
    "Download links (WebVTT files, valid for one hour) of the finished transcripts of the booking's video room.",
    Envelope(Type.Array(Type.String())),
    bookingTranscripts,
  );

  app.get('/v2/bookings/:bookingUid/references', {
    config: { access: access.user('BOOKING_READ') },
    schema: {
      tags,
      summary: 'Get booking references',
      description:
        "The calendar events svc wrote for the booking into its hosts' connected calendars, and its video meeting (Zoom, Microsoft Teams, Google Meet, a Daily room), for the organizer.",
      headers: readHeaders,
      params: BookingUidParams,
      querystring: ReferencesQuery,
      response: { 200: ReferencesOutput },
    },
    handler: async (request) => ok(await bookingReferences(ctx.database.db, callerOf(request), request.params.bookingUid, request.query.type)),
  });
}
