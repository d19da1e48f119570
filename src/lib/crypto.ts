import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

export const API_KEY_PREFIX = 'svc_';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** `svc_` + 32 lowercase hex characters, as the reference issues them. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(16).toString('hex');
}

/** API keys are stored as SHA-256 of the part after the prefix (the reference's `hashedKey`). */
export function hashApiKey(apiKey: string): string {
  return sha256Hex(apiKey.startsWith(API_KEY_PREFIX) ? apiKey.slice(API_KEY_PREFIX.length) : apiKey);
}

export function hashToken(token: string): string {
  return sha256Hex(token);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const derived = await scryptAsync(password, salt, 32);
  return `scrypt$${salt.toString('base64')}$${derived.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, saltB64, hashB64] = stored.split('$');
  if (scheme !== 'scrypt' || !saltB64 || !hashB64) return false;
  const expected = Buffer.from(hashB64, 'base64');
  const derived = await scryptAsync(password, Buffer.from(saltB64, 'base64'), expected.length);
  return timingSafeEqual(derived, expected);
}
