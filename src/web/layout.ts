import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Escapes text for HTML content and double-quoted attributes. */
export function esc(value: unknown): string {
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** A marked-up fragment: interpolate with `html` only, so every value is escaped unless it is a fragment. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0]!;
  values.forEach((value, index) => {
    const rendered = Array.isArray(value) ? value.map((item) => (item instanceof Html ? item.text : esc(item))).join('') : value instanceof Html ? value.text : esc(value);
    text += rendered + strings[index + 1]!;
  });
  return new Html(text);
}

// One style sheet for every page, allowed by its hash: no inline style or script is otherwise allowed.
// Colours keep at least 7:1 (text) and 4.5:1 (buttons, links) contrast; focus is always visible.
const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f4f5}
main{max-width:36rem;margin:3rem auto;padding:2rem;background:#fff;border:1px solid #d4d4d8;border-radius:8px}
header{max-width:36rem;margin:1.5rem auto 0;padding:0 .5rem;display:flex;justify-content:space-between;align-items:center;font-weight:600}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=text],input[type=email],input[type=password],input[type=url],textarea{width:100%;padding:.5rem;font:inherit;border:1px solid #52525b;border-radius:4px}
fieldset{border:1px solid #d4d4d8;border-radius:4px;margin:1rem 0;padding:.5rem 1rem}
fieldset label{display:inline;font-weight:400;margin:0 0 0 .25rem}
.choice{margin:.25rem 0}
button,a.button{font:inherit;padding:.5rem 1.25rem;border-radius:4px;border:1px solid #1e40af;background:#1e40af;color:#fff;cursor:pointer;margin:1rem .5rem 0 0}
a.button{display:inline-block;text-decoration:none}
button.secondary{background:#fff;color:#1e40af}
a{color:#1e40af}
:focus-visible{outline:3px solid #b45309;outline-offset:2px}
.alert{border-left:4px solid #b91c1c;background:#fef2f2;padding:.75rem 1rem;color:#7f1d1d}
.notice{border-left:4px solid #15803d;background:#f0fdf4;padding:.75rem 1rem;color:#14532d}
.app{display:flex;gap:1rem;align-items:center}
.app img{width:48px;height:48px;object-fit:contain}
ul.scopes li{margin:.25rem 0}
code{background:#f4f4f5;padding:0 .25rem;border-radius:3px;word-break:break-all}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem;border-bottom:1px solid #d4d4d8;vertical-align:top}
.inline{display:inline}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
main.wide{max-width:52rem}
.facts{list-style:none;padding:0;margin:0 0 1rem;color:#3f3f46}
.picker{display:flex;flex-wrap:wrap;gap:1.5rem}
.picker>*{flex:1 1 16rem;min-width:0}
.month{table-layout:fixed}
.month th,.month td{border:0;padding:.15rem;text-align:center}
.month a,.month span{display:block;padding:.4rem 0;border-radius:4px;text-decoration:none}
.month a{background:#eff6ff;font-weight:600}
.month a[aria-current]{background:#1e40af;color:#fff}
.month span{color:#52525b}
.nav{display:flex;justify-content:space-between;align-items:center;gap:.5rem}
ul.slots{list-style:none;padding:0;margin:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(7rem,1fr));gap:.5rem}
ul.slots a{display:block;padding:.5rem;border:1px solid #1e40af;border-radius:4px;text-align:center;text-decoration:none}
select{font:inherit;padding:.4rem;max-width:100%}
.row{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end}
.row>*{min-width:0;max-width:100%}
.nav a{padding:.25rem .5rem}
@media (max-width:30rem){main{margin:1rem .25rem;padding:1rem}header{margin:.75rem .5rem 0}}
`.trim();
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export interface PageOptions {
  title: string;
  body: Html;
  /** Who is logged in (shown with a log-out button). */
  signedIn?: { email: string; csrfToken: string } | undefined;
  /** Origins a form on the page may end up at (the consent form redirects to the client). */
  formTargets?: readonly string[] | undefined;
  /** A script of svc's own (a path on this origin) the page loads; without one no script runs. */
  script?: string | undefined;
  /** Origins that may show the page in a frame (booking pages on the embedding sites); none by default. */
  frameAncestors?: readonly string[] | undefined;
  /** A wider main column (the booking page's month and slots side by side). */
  wide?: boolean | undefined;
  /** The page's language (its texts' locale). */
  lang?: string | undefined;
}

function contentSecurityPolicy(formTargets: readonly string[], script: boolean, frameAncestors: readonly string[]): string {
  return [
    "default-src 'none'",
    `style-src 'sha256-${STYLE_HASH}'`,
    ...(script ? ["script-src 'self'", "connect-src 'self'"] : []),
    // Client logos are https images on the client's own host.
    "img-src 'self' https: data:",
    // Chrome applies form-action to the redirect that follows a submission as well.
    `form-action 'self'${formTargets.map((origin) => ` ${origin}`).join('')}`,
    `frame-ancestors ${frameAncestors.length ? frameAncestors.join(' ') : "'none'"}`,
    "base-uri 'none'",
  ].join('; ');
}

/** Sends a page with the security headers every page carries. */
export function sendPage(reply: FastifyReply, status: number, options: PageOptions): FastifyReply {
  const account = options.signedIn
    ? html`<form class="inline" method="post" action="/auth/logout"><span>${options.signedIn.email}</span> <input type="hidden" name="csrf" value="${options.signedIn.csrfToken}"><button type="submit" class="secondary">Log out</button></form>`
    : html``;
  const page = html`<!doctype html>
<html lang="${options.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title} · svc</title>
<style>${new Html(STYLE)}</style>
${options.script ? html`<script src="${options.script}" defer></script>` : html``}
</head>
<body>
<header><span>svc</span>${account}</header>
<main${options.wide ? html` class="wide"` : html``}>
<h1>${options.title}</h1>
${options.body}
</main>
</body>
</html>
`;
  const frameAncestors = options.frameAncestors ?? [];
  // X-Frame-Options cannot name origins: a page some sites may frame relies on frame-ancestors alone.
  if (frameAncestors.length === 0) reply.header('X-Frame-Options', 'DENY');
  return reply
    .status(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Content-Security-Policy', contentSecurityPolicy(options.formTargets ?? [], options.script !== undefined, frameAncestors))
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-store')
    .send(page.text);
}

export function sendErrorPage(reply: FastifyReply, status: number, title: string, message: string): FastifyReply {
  return sendPage(reply, status, { title, body: html`<p class="alert" role="alert">${message}</p>` });
}

/** Form bodies: repeated names become arrays. */
export function parseForm(body: string): Record<string, string | string[]> {
  const form: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(body)) {
    const existing = form[name];
    form[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return form;
}

/** One value of a form or query field (the first, if it was repeated). */
export function field(source: unknown, name: string): string | undefined {
  const value = (source as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
}

export function fieldList(source: unknown, name: string): string[] {
  const value = (source as Record<string, unknown> | undefined)?.[name];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((item): item is string => typeof item === 'string');
}

/** Lets a plugin scope (pages, OAuth endpoints) read `application/x-www-form-urlencoded` bodies. */
export function acceptFormBodies(scope: Pick<FastifyInstance, 'addContentTypeParser'>, bodyLimit: number): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit }, (_request, body, done) => done(null, parseForm(body as string)));
}
