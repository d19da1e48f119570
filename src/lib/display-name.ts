import { invalidField } from './errors.js';

// Control characters (Unicode Cc: C0, DEL, C1) break a name across lines on a page, in a log or in a
// mail header; bidirectional controls (Bidi_Control: U+061C, U+200E, U+200F, U+202A-U+202E,
// U+2066-U+2069) reorder the text after them, so "Invoices \u202Efdp.exe" reads "Invoices exe.pdf".
const UNSAFE_IN_NAME = /[\p{Cc}\p{Bidi_Control}]/u;

/** A 400 naming `property` unless `name`, shown to people as written, is free of those characters. */
export function assertDisplayName(property: string, name: string): void {
  if (UNSAFE_IN_NAME.test(name)) {
    throw invalidField(property, 'must not contain control characters (line breaks, tabs...) or bidirectional-control characters (U+202E...)', name);
  }
}
