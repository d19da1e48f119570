export { type CalDavCredentials, type CalDavObject, ICLOUD_CALDAV_URL } from './client.js';
export { type CalDavDiscovery, discoverCalendars } from './discovery.js';
export { deleteEvent, eventResourceName, putEvent, replaceEvent } from './events.js';
export { type CalDavSyncResult, type CalDavSyncState, fetchWindow, syncCalendar } from './sync.js';
