// The calendar-invite template sanitizer on generated input: whatever mix of tags, entities and
// nesting is sent, the result holds no tag however often a reader decodes it, and sanitizing it again
// changes nothing. (test/mail/calendar-invites.test.ts checks the routes and the invitations.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeHTML } from 'entities';
import fc from 'fast-check';
import { sanitizeTemplate } from '../../src/modules/calendar-invites/sanitize-template.js';

/** A tag, comment or processing instruction in `text` read as HTML after entities are decoded until none is left. */
function markupIn(text: string): string | null {
  let read = text;
  for (let decoded = decodeHTML(read); decoded !== read; decoded = decodeHTML(read)) read = decoded;
  return /<\/?[a-z]|<[!?]/i.exec(read)?.[0] ?? null;
}

const PIECES = ['<', '>', '&', ';', '#', '/', '!', '?', '=', '-', ' ', '\n', '"', "'", '[', ']', 'lt', 'gt', 'amp', 'LT', 'x3c', 'x3C', '60', '62', '38', 'a', 'b', 'i', 'script', 'img', 'CDATA', '<i>', '</i>', '<b>', '&lt;', '&amp;', '&#'];

test('no generated mix of tags, entities and nesting leaves markup; the result is stable', () => {
  const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(''));
  fc.assert(
    fc.property(text, (template) => {
      const clean = sanitizeTemplate(template);
      assert.equal(markupIn(clean), null, `${JSON.stringify(template)} -> ${JSON.stringify(clean)}`);
      assert.equal(sanitizeTemplate(clean), clean);
    }),
    { numRuns: 5_000 },
  );
});

test('text, placeholders and Markdown links are kept as written', () => {
  for (const template of [
    '[Join](https://meet.example/x?a=1&b=2&notify=1&copy=2&region=eu)',
    'Agenda for {HOST} with {Scheduler first name}: {MANAGE_LINK}',
    'a < b > c, 5 <3, Q&A, I prefer <2pm',
    'line 1\nline 2\n\n  indented',
  ]) {
    assert.equal(sanitizeTemplate(template), template);
  }
});
