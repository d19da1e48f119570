// The built-in video app (svc-video): every booking on it gets a room of its own, named by 128 random
// bits, so only those given the link can find it. By default a Jitsi Meet room on the configured server
// (SVC_VIDEO_URL), which exists while someone is in it and needs no call to create. With a Daily API key
// configured, a Daily room on the domain (SVC_DAILY_ROOM_URL): its name and link are made with the
// booking, inside its transaction, and a job creates it at Daily after commit (booking-meetings.service).
import { randomBytes } from 'node:crypto';
import type { Config } from '../../app/config.js';
import { BUILT_IN_VIDEO } from '../event-types/locations.js';

/** What a booking's location says before it has a room: the app, as the reference prints it. */
const BUILT_IN_VIDEO_LOCATION = `integrations:${BUILT_IN_VIDEO}`;

/** Where built-in rooms live: Jitsi on `jitsiUrl`, or Daily rooms under `dailyRoomUrl` when set. */
export interface BuiltInVideo {
  jitsiUrl: string;
  dailyRoomUrl: string | null;
}

/**
 * The location and metadata a new booking stores: on the built-in app, its own room, as the location
 * and as `metadata.videoCallUrl` (where the reference keeps its video links); any other location as it
 * is. `dailyRoom`: the name of the Daily room to create for it.
 */
export function withMeetingLink<M extends Record<string, unknown>>(
  location: string | null,
  metadata: M,
  video: BuiltInVideo,
): { location: string | null; metadata: M & { videoCallUrl?: string }; dailyRoom?: string } {
  if (location !== BUILT_IN_VIDEO_LOCATION) return { location, metadata };
  const name = `svc-${randomBytes(16).toString('base64url')}`;
  const room = `${video.dailyRoomUrl ?? video.jitsiUrl}/${name}`;
  return { location: room, metadata: { ...metadata, videoCallUrl: room }, ...(video.dailyRoomUrl ? { dailyRoom: name } : {}) };
}

/** Where this svc's built-in rooms live. */
export const builtInVideoOf = (config: Pick<Config, 'videoUrl' | 'daily'>): BuiltInVideo => ({ jitsiUrl: config.videoUrl, dailyRoomUrl: config.daily?.roomUrl ?? null });

/**
 * A seat moved into a booking of its own gets a meeting of its own, not the link of the booking it left:
 * the app its booker chose (its `location` answer), with a new room for the built-in video; a provider's
 * app is named as the location, and its meeting is made as for a new booking. Null when the booking it
 * leaves has no meeting link.
 */
export function ownMeetingOfSeat<M extends Record<string, unknown>>(
  seatResponses: Record<string, unknown> | null,
  metadata: M,
  video: BuiltInVideo,
): { location: string; metadata: Omit<M, 'videoCallUrl'> & { videoCallUrl?: string }; dailyRoom?: string } | null {
  const chosen = (seatResponses?.location as { optionValue?: unknown } | undefined)?.optionValue;
  if (typeof metadata.videoCallUrl !== 'string' || typeof chosen !== 'string' || !chosen.startsWith('integrations:')) return null;
  const { videoCallUrl: _left, ...rest } = metadata;
  const linked = withMeetingLink(chosen, rest, video);
  return { ...linked, location: linked.location ?? chosen };
}
