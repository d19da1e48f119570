// A real CalDAV server for the CalDAV adapter's tests and bench: Debian's Radicale on 127.0.0.1, on a
// free port, with its own storage folder and a plain-text htpasswd file, stopped and removed at the end.
// Without radicale installed the tests are skipped, saying so (`.ci/run` installs it).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './child-server.js';

function findRadicale(): string | null {
  if (fs.existsSync('/usr/bin/radicale')) return '/usr/bin/radicale';
  try {
    return execFileSync('sh', ['-c', 'command -v radicale'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

export const RADICALE = findRadicale();
export const RADICALE_SKIP = RADICALE ? false : "Debian's radicale is not installed (apt-get install -y radicale): the CalDAV tests are SKIPPED";

/**
 * Collections whose name starts with "ro-" are read-only to their owner (Radicale's rights file), so
 * discovery can be shown a read-only calendar; they are filled through the storage folder.
 */
const RIGHTS = `
[read-only calendars]
user: .+
collection: {user}/ro-[^/]+
permissions: r

[root]
user: .+
collection:
permissions: R

[principal]
user: .+
collection: {user}
permissions: RW

[calendars]
user: .+
collection: {user}/[^/]+
permissions: rw
`;

export interface CalendarProps {
  name: string;
  /** IANA zone written as the calendar's calendar-timezone (a VTIMEZONE with that TZID). */
  timeZone?: string;
  /** supported-calendar-component-set; VEVENT when not given. */
  components?: string[];
}

export interface RadicaleServer {
  /** http://127.0.0.1:PORT/ */
  baseUrl: string;
  /** The storage folder: collection-root/<user>/<calendar>/<object>.ics */
  storageDir: string;
  credentials(user: string): { serverUrl: string; username: string; password: string };
  calendarUrl(user: string, slug: string): string;
  /** MKCALENDAR as the user. Returns the calendar's URL. */
  createCalendar(user: string, slug: string, props: CalendarProps): Promise<string>;
  /** PUT an object straight to the server as the user (their own calendar app, say). Returns the new ETag. */
  putRaw(user: string, url: string, ics: string): Promise<string | null>;
  /** DELETE an object straight on the server as the user. */
  deleteRaw(user: string, url: string): Promise<void>;
  /** Everything Radicale wrote to stderr so far. */
  log(): string;
  stop(): Promise<void>;
}

function vtimezone(zone: string): string {
  return `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//svc tests//EN\r\nBEGIN:VTIMEZONE\r\nTZID:${zone}\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0000\r\nTZOFFSETTO:+0000\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\nEND:VCALENDAR\r\n`;
}

/**
 * Writes a calendar collection and its objects straight into a Radicale storage folder (its layout:
 * one folder per collection with a .Radicale.props JSON file, one file per object). Used before the
 * server starts to load large calendars fast, and for read-only ("ro-") calendars the owner cannot
 * write over HTTP. Radicale reads the folder on every request, so it may also run already.
 */
export function writeCalendarFiles(storageDir: string, user: string, slug: string, props: CalendarProps, objects: { name: string; ics: string }[] = []): void {
  const folder = path.join(storageDir, 'collection-root', user, slug);
  fs.mkdirSync(folder, { recursive: true });
  const meta: Record<string, string> = {
    tag: 'VCALENDAR',
    'D:displayname': props.name,
    'C:supported-calendar-component-set': (props.components ?? ['VEVENT']).join(','),
  };
  if (props.timeZone) meta['C:calendar-timezone'] = vtimezone(props.timeZone);
  fs.writeFileSync(path.join(folder, '.Radicale.props'), JSON.stringify(meta));
  for (const object of objects) fs.writeFileSync(path.join(folder, object.name), object.ics);
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

async function answers(url: string, child: ChildProcess, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error('radicale exited while starting');
    try {
      await fetch(url, { method: 'OPTIONS', signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('radicale did not answer within 20 s');
}

/**
 * Starts Radicale with the given users (name → password). `seed` runs before the server starts, with
 * the storage folder (see writeCalendarFiles).
 */
export async function startRadicale(options: { users: Record<string, string>; seed?: (storageDir: string) => void }): Promise<RadicaleServer> {
  if (!RADICALE) throw new Error(RADICALE_SKIP || 'radicale missing');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-radicale-'));
  const storageDir = path.join(dir, 'collections');
  fs.mkdirSync(storageDir);
  options.seed?.(storageDir);
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'users'), Object.entries(options.users).map(([user, password]) => `${user}:${password}\n`).join(''));
  fs.writeFileSync(path.join(dir, 'rights'), RIGHTS);
  fs.writeFileSync(
    path.join(dir, 'config'),
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      'max_connections = 20',
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${path.join(dir, 'users')}`,
      // Debian's radicale takes plain and md5 (apr1) without more packages; bcrypt needs passlib[bcrypt].
      'htpasswd_encryption = plain',
      'delay = 0',
      '[rights]',
      'type = from_file',
      `file = ${path.join(dir, 'rights')}`,
      '[storage]',
      `filesystem_folder = ${storageDir}`,
      '[web]',
      'type = none',
      '[logging]',
      'level = warning',
      '',
    ].join('\n'),
  );
  const child = spawn(RADICALE, ['-C', path.join(dir, 'config')], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, RADICALE_CONFIG: '' } });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A test process that dies without its after() hook must not leave the server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const baseUrl = `http://127.0.0.1:${port}/`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await answers(baseUrl, child, Date.now() + 20_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }

  const password = (user: string) => {
    const known = options.users[user];
    if (known === undefined) throw new Error(`no radicale user ${user}`);
    return known;
  };
  const calendarUrl = (user: string, slug: string) => `${baseUrl}${user}/${slug}/`;
  const call = async (user: string, url: string, init: RequestInit) => {
    const response = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: basic(user, password(user)) } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method} ${url}: ${response.status} ${text}`);
    return response;
  };

  return {
    baseUrl,
    storageDir,
    credentials: (user) => ({ serverUrl: baseUrl, username: user, password: password(user) }),
    calendarUrl,
    async createCalendar(user, slug, props) {
      // The principal's collection appears on the user's first request.
      await call(user, `${baseUrl}${user}/`, { method: 'PROPFIND', headers: { depth: '0' } });
      const components = (props.components ?? ['VEVENT']).map((name) => `<C:comp name="${name}"/>`).join('');
      const zone = props.timeZone ? `<C:calendar-timezone><![CDATA[${vtimezone(props.timeZone)}]]></C:calendar-timezone>` : '';
      const body =
        `<?xml version="1.0" encoding="utf-8"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>` +
        `<D:displayname>${props.name.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</D:displayname>` +
        `<C:supported-calendar-component-set>${components}</C:supported-calendar-component-set>${zone}</D:prop></D:set></C:mkcalendar>`;
      const url = calendarUrl(user, slug);
      await call(user, url, { method: 'MKCALENDAR', headers: { 'content-type': 'application/xml' }, body });
      return url;
    },
    async putRaw(user, url, ics) {
      const response = await call(user, url, { method: 'PUT', headers: { 'content-type': 'text/calendar; charset=utf-8' }, body: ics });
      return response.headers.get('etag');
    },
    async deleteRaw(user, url) {
      await call(user, url, { method: 'DELETE' });
    },
    log: () => stderr,
    stop,
  };
}

/** A one-VEVENT iCalendar object; `extra` lines go inside the VEVENT (an RRULE, say). */
export function eventIcs(uid: string, start: Date, end: Date, summary = 'Busy', extra: string[] = []): string {
  const stamp = (date: Date) => date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//svc tests//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    `DTSTART:${stamp(start)}`,
    `DTEND:${stamp(end)}`,
    `SUMMARY:${summary}`,
    ...extra,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}
