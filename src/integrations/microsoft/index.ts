// Microsoft 365 / Outlook calendars through Microsoft Graph v1.0 and the Microsoft identity platform.
//
// Plain `fetch` (the session's: svc's guarded fetch with its deadline and size cap), not
// @microsoft/microsoft-graph-client: the adapter makes about six kinds of call, the SDK would be one
// more dependency with its own retry and auth middleware to keep out of the way of svc's, and tests
// point the base URLs at a local fake Graph server, which plain URLs make simple.
import type { OAuthCalendarAdapter } from '../calendar-types.js';
import { accountEmail, deleteEvent, insertEvent, listCalendars, readEvents, updateEvent } from './calendar.js';
import { authorizationUrl, exchangeCode } from './oauth.js';
import { stopWatching, watchEvents } from './subscriptions.js';

export const microsoftCalendar: OAuthCalendarAdapter = {
  authorizationUrl,
  exchangeCode,
  accountEmail,
  listCalendars,
  readEvents,
  insertEvent,
  updateEvent,
  deleteEvent,
  watchEvents,
  stopWatching,
};

export { transactionIdOf, uidOfTransactionId } from './calendar.js';
export { MICROSOFT_ENDPOINTS, MICROSOFT_SCOPES, refreshTokens } from './oauth.js';
export { appOnlyTokens, tenantTokenUrl } from './oauth.js';
