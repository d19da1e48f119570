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

/**
 * The zone's name in the letter case of the IANA database ("america/new_york" is America/New_York),
 * as the reference's CapitalizeTimeZone writes it. Only the case changes: an alias keeps its own name
 * ("US/Eastern" is not turned into America/New_York), and a name this runtime does not know is kept.
 */
export function ianaSpelling(zone: string): string {
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
    if (resolved.toLowerCase() === zone.toLowerCase()) return resolved;
  } catch {
    return zone;
  }
  return Intl.supportedValuesOf('timeZone').find((name) => name.toLowerCase() === zone.toLowerCase()) ?? zone;
}
