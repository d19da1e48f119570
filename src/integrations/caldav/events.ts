import { createHash } from 'node:crypto';
import { createObject, deleteObject, updateObject } from 'tsdav';
import type { OutboundPolicy } from '../outbound-fetch.js';
import { type Answer, type CalDavCredentials, type Session, XMLNS, cleanUrl, collectionUrl, dav, precondition, providerError, send, session, statusError, textOf } from './client.js';

/**
 * The resource name an event is written under. A UID of URL-safe characters (svc's booking UIDs are
 * UUIDs) is used as it is; any other is replaced by its SHA-256, because servers decode "%2F" and the
 * like back into path separators and spell other escapes their own way in the hrefs they list.
 */
export function eventResourceName(uid: string): string {
  if (/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/.test(uid)) return `${uid}.ics`;
  return `${createHash('sha256').update(uid, 'utf8').digest('hex')}.ics`;
}

function writeError(s: Session, answer: Answer, what: string): Error {
  if (answer.status === 412) return providerError(s, 'conflict', `${what}: HTTP 412 (the event changed on the server, or already exists)`);
  if (answer.status === 409) {
    const named = precondition(answer);
    if (named === 'no-uid-conflict') return providerError(s, 'conflict', `${what}: HTTP 409 (another event in the calendar has this UID)`);
    // A PUT's 409 without a precondition means the collection it goes into does not exist (RFC 4918 9.7.1).
    if (!named) return providerError(s, 'not_found', `${what}: HTTP 409 (the calendar does not exist)`);
    return providerError(s, 'invalid_data', `${what}: HTTP 409 (precondition ${named})`);
  }
  return statusError(s, answer, what);
}

/** The ETag a server that answered a PUT without one now has for the event; null if it will not say. */
async function currentEtag(s: Session, href: string): Promise<string | null> {
  const body = { 'd:propfind': { _attributes: XMLNS, 'd:prop': { 'd:getetag': {} } } };
  const answer = await dav(s, href, 'PROPFIND', '0', body, `PROPFIND getetag on ${href}`);
  if (answer.status !== 207) return null;
  return textOf((answer.responses[0]?.props as Record<string, unknown> | undefined)?.getetag);
}

/**
 * Writes an event (a whole iCalendar object) into the calendar at `<calendarUrl><uid>.ics`. Without an
 * etag it is a create (If-None-Match: *), with one an update (If-Match). A write that loses (412, or a
 * UID another resource holds) fails with kind 'conflict': re-read the event and retry.
 */
export async function putEvent(
  creds: CalDavCredentials,
  calendarUrl: string,
  event: { uid: string; ics: string; etag?: string | null },
  policy: OutboundPolicy,
): Promise<{ href: string; etag: string | null }> {
  const s = session(creds, policy);
  const href = new URL(eventResourceName(event.uid), collectionUrl(s, calendarUrl)).href;
  const what = `PUT ${href}`;
  const headers = { 'content-type': 'text/calendar; charset=utf-8' };
  const answer = await send(s, what, (fetch, authorization) =>
    event.etag
      ? updateObject({ url: href, data: event.ics, etag: event.etag, headers: { ...headers, authorization }, fetch })
      : createObject({ url: href, data: event.ics, headers: { ...headers, authorization, 'if-none-match': '*' }, fetch }),
  );
  if (answer.status < 200 || answer.status >= 300) throw writeError(s, answer, what);
  // A server that changed what it stored may leave the ETag out (RFC 4791 5.3.4).
  const etag = answer.headers.get('etag') ?? (await currentEtag(s, href));
  return { href, etag };
}

/**
 * Writes the event over whatever the calendar holds under its name now (someone edited it, or an
 * earlier write's answer was lost): its current ETag is read and the write made on it.
 */
export async function replaceEvent(creds: CalDavCredentials, calendarUrl: string, event: { uid: string; ics: string }, policy: OutboundPolicy): Promise<{ href: string; etag: string | null }> {
  const s = session(creds, policy);
  const href = new URL(eventResourceName(event.uid), collectionUrl(s, calendarUrl)).href;
  return putEvent(creds, calendarUrl, { ...event, etag: await currentEtag(s, href) }, policy);
}

/** Deletes an event (If-Match when an etag is given). An event already gone counts as deleted; a changed one is a 'conflict'. */
export async function deleteEvent(creds: CalDavCredentials, href: string, etag: string | null, policy: OutboundPolicy): Promise<void> {
  const s = session(creds, policy);
  const url = cleanUrl(s, href).href;
  const what = `DELETE ${url}`;
  const answer = await send(s, what, (fetch, authorization) => deleteObject({ url, ...(etag ? { etag } : {}), headers: { authorization }, fetch }));
  if ((answer.status >= 200 && answer.status < 300) || answer.status === 404 || answer.status === 410) return;
  throw writeError(s, answer, what);
}
