import type { TenantRule } from '../modules/access/tenant-access.js';
import type { Scope } from './scopes.js';

/** The credential kinds of the reference (contract section 2). */
export type CredentialKind = 'apiKey' | 'accessToken' | 'oauthClient';

/**
 * Who may call a route, declared on every route (`config.access`). `app/build-app.ts` refuses to
 * register a route without one, and the auth hook enforces it before validation runs.
 */
export interface RouteAccess {
  /** `required`: a credential of an allowed kind; `optional`: public, but a credential sent is checked; `none`: public. */
  auth: 'required' | 'optional' | 'none';
  credentials: readonly CredentialKind[];
  /** Scope an OAuth access token must carry; null where the route needs none. */
  scope: Scope | null;
  /** Only the system admin (svc's own admin routes). */
  systemAdmin?: boolean;
  /** An organization or team route: the role or PBAC permissions the caller needs there (checked with the credential). */
  tenant?: TenantRule;
  /** Version 1 routes: the API key comes in the `apiKey` query parameter. */
  apiKeyInQuery?: boolean;
  /**
   * Platform routes: `organizationAdmin`, the caller administers a platform organization; `client`, the
   * caller may act for the OAuth client of the `:clientId` path parameter (checked with the credential).
   */
  platform?: 'organizationAdmin' | 'client';
}

const USER_CREDENTIALS: readonly CredentialKind[] = ['apiKey', 'accessToken'];
const ALL_CREDENTIALS: readonly CredentialKind[] = ['apiKey', 'accessToken', 'oauthClient'];

export const access = {
  /** Open to anyone; nothing about the caller is read. */
  public: (): RouteAccess => ({ auth: 'none', credentials: [], scope: null }),
  /**
   * Open to anyone; a credential that is sent must be valid and identifies the caller (platform
   * credentials act as their organization's owner, as in the reference).
   */
  publicOrUser: (scope: Scope | null = null): RouteAccess => ({ auth: 'optional', credentials: ALL_CREDENTIALS, scope }),
  /** A user acting through an API key or an access token covering `scope`. */
  user: (scope: Scope, credentials: readonly CredentialKind[] = USER_CREDENTIALS): RouteAccess => ({
    auth: 'required',
    credentials,
    scope,
  }),
  /** A version 1 route: an API key in the `apiKey` query parameter (or as a bearer token). */
  v1ApiKey: (): RouteAccess => ({ auth: 'required', credentials: ['apiKey'], scope: null, apiKeyInQuery: true }),
  /** The caller's own API key (key management cannot be done with an access token). */
  apiKeyOnly: (): RouteAccess => ({ auth: 'required', credentials: ['apiKey'], scope: null }),
  /**
   * A route under an organization (`:orgId`) and/or a team (`:teamId`): callers with an API key, an
   * access token covering `scope`, or (platform customers) their OAuth client's credentials, holding
   * `tenant.role` or one of `tenant.permissions` there.
   */
  tenant: (scope: Scope, tenant: TenantRule): RouteAccess => ({ auth: 'required', credentials: ALL_CREDENTIALS, scope, tenant }),
  /**
   * A route of one platform OAuth client (`:clientId`): an API key of an admin or owner of the client's
   * organization, or the client's own credentials (`x-svc-secret-key` with the path's client id).
   */
  platformClient: (): RouteAccess => ({ auth: 'required', credentials: ['apiKey', 'oauthClient'], scope: null, platform: 'client' }),
  /** The OAuth clients themselves: an API key of an admin or owner of a platform organization. */
  oauthClients: (platform: 'organizationAdmin' | 'client'): RouteAccess => ({ auth: 'required', credentials: ['apiKey'], scope: null, platform }),
  /** svc's system administrator, with an API key. */
  systemAdmin: (): RouteAccess => ({ auth: 'required', credentials: ['apiKey'], scope: null, systemAdmin: true }),
};

/**
 * Named throttles of the expensive routes (the reference's per-endpoint `@Throttle`): an anonymous
 * caller counts against the named limit as well as the default one, and the answer carries
 * `X-RateLimit-*-<Name>` headers. Keyed by method and route path.
 */
export type ThrottleName = 'Slots' | 'Reservations' | 'Bookings';

export const ROUTE_THROTTLES: Readonly<Record<string, ThrottleName>> = {
  'GET /v2/slots': 'Slots',
  'POST /v2/slots/reservations': 'Reservations',
  'PATCH /v2/slots/reservations/:uid': 'Reservations',
  'POST /v2/bookings': 'Bookings',
  'POST /v2/bookings/:bookingUid/reschedule': 'Bookings',
  // svc: a cancellation mails the booking's attendees as a booking does.
  'POST /v2/bookings/:bookingUid/cancel': 'Bookings',
  // A routing form's slots cost what GET /v2/slots costs; a public response also stores and announces.
  'POST /v2/routing-forms/:routingFormId/calculate-slots': 'Slots',
  'POST /v2/routing-forms/:routingFormId/responses': 'Reservations',
};
