// How settings of the environment are read: integers with a floor, http(s) addresses; a bad one is a ConfigError naming it.
import { ConfigError } from './config-error.js';

export function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

export function parseHttpUrl(name: string, value: string, accepted = 'an http(s) URL'): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http');
    return url.href.replace(/\/+$/, '');
  } catch {
    throw new ConfigError(`${name} must be ${accepted}, not "${value}"`);
  }
}
