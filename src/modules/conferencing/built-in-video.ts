// The built-in video app (svc-video): every booking on it gets a Jitsi Meet room of its own on the
// configured server (SVC_VIDEO_URL). A Jitsi room exists while someone is in it and needs no account or
// API call to create, so the link is made with the booking, inside its transaction.
import { randomBytes } from 'node:crypto';
import { BUILT_IN_VIDEO } from '../event-types/locations.js';

/** What a booking's location says before it has a room: the app, as the reference prints it. */
const BUILT_IN_VIDEO_LOCATION = `integrations:${BUILT_IN_VIDEO}`;

/** A new room on `baseUrl`, named by 128 random bits: only those given the link can find it. */
function builtInVideoRoom(baseUrl: string): string {
  return `${baseUrl}/svc-${randomBytes(16).toString('base64url')}`;
}

/**
 * The location and metadata a new booking stores: on the built-in app, its own room, as the location
 * and as `metadata.videoCallUrl` (where the reference keeps its video links); any other location as it is.
 */
export function withMeetingLink<M extends Record<string, unknown>>(location: string | null, metadata: M, baseUrl: string): { location: string | null; metadata: M & { videoCallUrl?: string } } {
  if (location !== BUILT_IN_VIDEO_LOCATION) return { location, metadata };
  const room = builtInVideoRoom(baseUrl);
  return { location: room, metadata: { ...metadata, videoCallUrl: room } };
}
