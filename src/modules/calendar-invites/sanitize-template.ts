// Spec 2.9: "HTML tags are stripped before saving. Markdown links are kept." A calendar-invite template
// is plain text with placeholders; some calendars show DESCRIPTION as HTML, so no tag may reach it,
// however it was encoded or nested.
import { decodeHTMLAttribute } from 'entities';
import sanitizeHtml from 'sanitize-html';

const HTML_ESCAPE: Record<string, string> = { amp: '&', lt: '<', gt: '>' };

/**
 * Tags and comments dropped (script and style bodies with them), the text around them as it was:
 * with `decodeEntities: false` sanitize-html escapes only `<`, `>` and a bare `&`, which are put back.
 */
function stripTags(text: string): string {
  const html = sanitizeHtml(text, { allowedTags: [], allowedAttributes: {}, disallowedTagsMode: 'discard', parser: { decodeEntities: false } });
  return html.replace(/&(amp|lt|gt);/g, (_, name: string) => HTML_ESCAPE[name]!);
}

// Running text, unlike an attribute, reads `&lt`, `&gt` and `&amp` even when a letter, digit or `=`
// follows (`&ltscript&gt;` is `<script>`); other such references stand for no markup character.
const BARE_MARKUP_REFERENCE = /&(lt|LT|gt|GT|amp|AMP)(?=[A-Za-z0-9=])/g;
const MARKUP_CHARACTER: Record<string, string> = { lt: '<', gt: '>', amp: '&' };

/**
 * One level of entities decoded as a browser reads a link in an attribute, so a query's `&notify=1` or
 * `&region=eu` stays as written, plus every reference that running text would read as `<`, `>` or `&`.
 */
const decodeOneLevel = (text: string) => decodeHTMLAttribute(text).replace(BARE_MARKUP_REFERENCE, (_, name: string) => MARKUP_CHARACTER[name.toLowerCase()]!);

/** A person's template settles in two or three passes; one still changing after this many is an attack. */
const MAX_PASSES = 10;

/**
 * The template as stored and rendered. Entities are decoded and tags stripped until neither changes
 * the text: decoding can reveal a tag (`&lt;b&gt;`, `&amp;lt;b&amp;gt;`) and stripping can make one
 * (`<scr<script>ipt>`) or join an entity (`&l<i></i>t;`). What is left has no tag and no reference that
 * any reading decodes to `<`, `>` or `&`, so no tag appears however often a reader decodes it. Text
 * nested deeper than MAX_PASSES loses every `<`, `>` and `&` instead.
 */
export function sanitizeTemplate(template: string): string {
  let text = template;
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    const next = stripTags(decodeOneLevel(text));
    if (next === text) return text.trim();
    text = next;
  }
  return text.replace(/[<>&]/g, '').trim();
}
