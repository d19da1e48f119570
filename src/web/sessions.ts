import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app/context.js';
import { hashToken } from '../lib/crypto.js';
import type { UserRecord } from '../modules/users/users.repository.js';
import * as repo from './web-sessions.repository.js';

export const SESSION_COOKIE = 'svc_session';
/** Logged-in sessions last 12 hours; a visitor's (only the login form's CSRF token) one hour. */
const USER_SESSION_MS = 12 * 3_600_000;
const VISITOR_SESSION_MS = 3_600_000;

type SessionDeps = Pick<AppContext, 'database' | 'config'>;

export interface WebSession {
  hashedId: string;
  csrfToken: string;
  user: UserRecord | null;
}

function cookieValue(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

/** HttpOnly, SameSite=Lax, and Secure whenever the pages are served over https. */
function setSessionCookie(deps: SessionDeps, request: FastifyRequest, reply: FastifyReply, value: string, maxAgeMs: number): void {
  const secure = deps.config.appUrl.startsWith('https:') || request.protocol === 'https';
  const attributes = [`${SESSION_COOKIE}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${Math.floor(maxAgeMs / 1000)}`];
  if (secure) attributes.push('Secure');
  reply.header('Set-Cookie', attributes.join('; '));
}

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** The session of the request's cookie, if it is live. */
export async function currentSession(deps: SessionDeps, request: FastifyRequest): Promise<WebSession | null> {
  const id = cookieValue(request, SESSION_COOKIE);
  if (!id || !SESSION_ID.test(id)) return null;
  const found = await repo.findLiveSession(deps.database.db, hashToken(id), new Date());
  return found ? { hashedId: found.session.hashedId, csrfToken: found.session.csrfToken, user: found.user } : null;
}

async function startSession(deps: SessionDeps, request: FastifyRequest, reply: FastifyReply, user: UserRecord | null): Promise<WebSession> {
  const id = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const lifetime = user ? USER_SESSION_MS : VISITOR_SESSION_MS;
  const hashedId = hashToken(id);
  await repo.insertSession(deps.database.db, { hashedId, userId: user?.id ?? null, csrfToken, expiresAt: new Date(Date.now() + lifetime) });
  setSessionCookie(deps, request, reply, id, lifetime);
  return { hashedId, csrfToken, user };
}

/** The request's session, or a new visitor session (it carries the CSRF token of the login form). */
export async function ensureSession(deps: SessionDeps, request: FastifyRequest, reply: FastifyReply): Promise<WebSession> {
  return (await currentSession(deps, request)) ?? startSession(deps, request, reply, null);
}

/** Logs `user` in: the visitor session is replaced by a new one, so a planted session id is worth nothing. */
export async function logIn(deps: SessionDeps, request: FastifyRequest, reply: FastifyReply, previous: WebSession | null, user: UserRecord): Promise<WebSession> {
  if (previous) await repo.deleteSession(deps.database.db, previous.hashedId);
  return startSession(deps, request, reply, user);
}

export async function logOut(deps: SessionDeps, request: FastifyRequest, reply: FastifyReply, session: WebSession): Promise<void> {
  await repo.deleteSession(deps.database.db, session.hashedId);
  setSessionCookie(deps, request, reply, '', 0);
}

/** The form's CSRF token is the session's (synchronizer token), compared in constant time. */
export function csrfMatches(session: WebSession | null, sent: unknown): boolean {
  if (!session || typeof sent !== 'string') return false;
  const expected = Buffer.from(session.csrfToken);
  const given = Buffer.from(sent);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

