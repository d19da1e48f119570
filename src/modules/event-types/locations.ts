import { Type, type Static } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { invalidField } from '../../lib/errors.js';
import type { StoredLocation } from './event-type-model.js';

/** Location kinds of a personal event type (contract 5.2; `organizersDefaultApp` is for team event types only). */
const LOCATION_TYPES = ['address', 'link', 'phone', 'integration', 'attendeeAddress', 'attendeePhone', 'attendeeDefined'] as const;

/** Conferencing apps a location may name (contract 5.2). */
export const INTEGRATIONS = [
  'svc-video', 'google-meet', 'zoom', 'whereby-video', 'whatsapp-video', 'webex-video', 'telegram-video', 'tandem',
  'sylaps-video', 'skype-video', 'sirius-video', 'signal-video', 'shimmer-video', 'salesroom-video', 'roam-video',
  'riverside-video', 'ping-video', 'office365-video', 'mirotalk-video', 'jitsi', 'jelly-video', 'jelly-conferencing',
  'huddle', 'facetime-video', 'element-call-video', 'eightxeight-video', 'discord-video', 'demodesk-video', 'campfire-video',
] as const;

/** The built-in video app: always installed, so every user may name it. */
export const BUILT_IN_VIDEO = 'svc-video';

/** Apps an owner installs (the conferencing routes) whose meetings a provider makes. */
export const INSTALLABLE_INTEGRATIONS = ['zoom', 'office365-video', 'google-meet'] as const;

/** A booking's location until Google has made its Meet conference (with the host's Google Calendar event). */
export const GOOGLE_MEET_LOCATION = 'integrations:google-meet';

/**
 * One object schema for every kind (the kind's keys are checked by `parseLocations`): a union of object
 * schemas would be stripped branch by branch by the validator's unknown-property removal.
 */
export const LocationInput = Type.Object(
  {
    type: StringEnum(LOCATION_TYPES, { description: 'address {address, public}, link {link, public}, phone {phone, public}, integration {integration}, attendeeAddress, attendeePhone, attendeeDefined' }),
    address: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'type address: where the meeting is' })),
    link: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'type link: an http(s) meeting URL' })),
    phone: Type.Optional(Type.String({ pattern: '^\\+[1-9]\\d{6,14}$', description: 'type phone: E.164, e.g. +37120993151' })),
    public: Type.Optional(Type.Boolean({ description: 'address, link and phone: shown on the booking page before booking' })),
    integration: Type.Optional(StringEnum(INTEGRATIONS, { description: 'type integration: the conferencing app; svc-video is always installed; zoom, office365-video and google-meet once connected (/v2/conferencing)' })),
  },
  { description: 'Where the event takes place' },
);

export const LocationOutput = Type.Object({
  type: Type.String(),
  address: Type.Optional(Type.String()),
  link: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
  public: Type.Optional(Type.Boolean()),
  integration: Type.Optional(Type.String()),
});

type LocationBody = Static<typeof LocationInput>;

/** When an event type is created without locations, the built-in video link is used. */
export const DEFAULT_LOCATIONS: StoredLocation[] = [{ type: 'integration', integration: BUILT_IN_VIDEO }];

function required<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw invalidField(field, 'is required for this location type');
  return value;
}

function parseLocation(location: LocationBody, field: string): StoredLocation {
  switch (location.type) {
    case 'address':
      return { type: 'address', address: required(location.address, `${field}.address`), public: required(location.public, `${field}.public`) };
    case 'link': {
      const link = required(location.link, `${field}.link`);
      if (!/^https?:\/\//i.test(link)) throw invalidField(`${field}.link`, 'must be an http(s) URL', link);
      return { type: 'link', link, public: required(location.public, `${field}.public`) };
    }
    case 'phone':
      return { type: 'phone', phone: required(location.phone, `${field}.phone`), public: required(location.public, `${field}.public`) };
    case 'integration': {
      const integration = required(location.integration, `${field}.integration`);
      // Naming an app does not install it (spec 2.1.4): the apps svc can install are checked against the
      // owner's installations by the service (assertLocationAppsInstalled); the rest cannot be installed.
      if (integration !== BUILT_IN_VIDEO && !(INSTALLABLE_INTEGRATIONS as readonly string[]).includes(integration)) {
        throw invalidField(`${field}.integration`, `names ${integration}, which svc cannot install: use ${[BUILT_IN_VIDEO, ...INSTALLABLE_INTEGRATIONS].join(', ')}, or a link location`, integration);
      }
      return { type: 'integration', integration };
    }
    default:
      return { type: location.type };
  }
}

export function parseLocations(locations: LocationBody[]): StoredLocation[] {
  return locations.map((location, index) => parseLocation(location, `locations.${index}`));
}

/** Stored and wire forms coincide for personal event types. */
export function presentLocations(locations: StoredLocation[]): Static<typeof LocationOutput>[] {
  return locations.map((location) => ({ ...location }));
}
