export { googleCalendar } from './calendar.js';
export { GOOGLE_ENDPOINTS, GOOGLE_SCOPES } from './oauth.js';
export { READ_AHEAD_MS } from './read.js';
export { getEvent as getGoogleEvent, patchEventFields as patchGoogleEventFields } from './write.js';
export { type GoogleServiceAccountKey, privateKeyProblem, serviceAccountTokens } from './delegation.js';
