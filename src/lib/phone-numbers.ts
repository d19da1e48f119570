// Phone numbers as svc stores and sends them: E.164 (+, country code, national number, nothing else).
import { parsePhoneNumberFromString } from 'libphonenumber-js';

// Only what people write between digits; letters (vanity numbers, "ext.") are refused rather than guessed at.
const WRITTEN_INTERNATIONAL = /^\+[\d\s().-]+$/;

/**
 * The E.164 form of a number written internationally ("+1 (415) 555-0100" -> "+14155550100"), or null
 * when it has no leading +, holds anything but digits and separators, or is not a valid number of its
 * country (per libphonenumber's metadata: reserved ranges such as the UK's 07700 900xxx drama numbers
 * are not valid). Without a + the country would have to be guessed, so such input is refused.
 */
export function normalizePhoneNumber(input: string): string | null {
  const written = input.trim();
  if (!WRITTEN_INTERNATIONAL.test(written)) return null;
  const parsed = parsePhoneNumberFromString(written);
  if (!parsed || parsed.ext || !parsed.isValid()) return null;
  return parsed.number;
}

/**
 * The number for logs and outputs: country code, the first 3 national digits and the last 2 kept, the
 * rest starred ("+14155550100" -> "+1415*****00"). Enough to tell numbers apart, not to dial one.
 */
export function maskPhoneNumber(e164: string): string {
  if (!/^\+\d{2,15}$/.test(e164)) return '***';
  const parsed = parsePhoneNumberFromString(e164);
  const countryCode = parsed?.countryCallingCode ?? '';
  const national = parsed ? String(parsed.nationalNumber) : e164.slice(1);
  // Short national numbers keep less, so at least a few digits stay hidden.
  const head = national.length >= 7 ? 3 : Math.max(0, national.length - 4);
  const tail = national.length >= 4 ? 2 : 0;
  return `+${countryCode}${national.slice(0, head)}${'*'.repeat(national.length - head - tail)}${national.slice(national.length - tail)}`;
}
