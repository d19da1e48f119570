const known = new Map<string, boolean>();

/** True for IANA zone names this runtime knows (and "UTC"); rejects offsets like "+05:30" and abbreviations. */
export function isIanaTimeZone(zone: string): boolean {
  let valid = known.get(zone);
  if (valid !== undefined) return valid;
  valid = false;
  if (/^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+)*$/.test(zone)) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      valid = true;
    } catch {
      valid = false;
    }
  }
  if (known.size < 2000) known.set(zone, valid);
  return valid;
}
