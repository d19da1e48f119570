import { createHash } from 'node:crypto';
import apiReference from '@scalar/fastify-api-reference';
import type { App } from './app.js';
import { access } from './access.js';
import { DOCS_TITLE } from './openapi.js';
import { SVC_ICON_SVG, SVC_LOGO_SVG } from './svc-logo.js';

/**
 * The API reference at /docs: Scalar's page (a sidebar by tag, a search box, a curl, JavaScript and
 * other samples per operation), served whole by svc: its script comes from the package, not a CDN,
 * and the page loads nothing from another origin (no web fonts, no telemetry, no proxy).
 */

const DOCUMENT_URL = '/docs/openapi.json';
const ICON_URL = '/docs/svc-icon.svg';
const LOGO_URL = '/docs/svc-logo.svg';

/** svc's mark on its dark strip above the sidebar, and its colour for links and focus. */
const SVC_CSS = `
.light-mode, .dark-mode { --scalar-color-accent: #0f766e; }
.t-doc__sidebar::before { content: ''; display: block; flex: none; height: 52px; background: #134e4a url('${LOGO_URL}') no-repeat 12px center / auto 32px; }
`;

const inlineScripts = (html: string) => [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The page's policy: scripts are svc's own file and the page's inline start-up script (by hash);
 * requests (the document, "Test request") go to svc only. Styles may be inline: the page's script
 * writes its stylesheet into the page at run time.
 */
export function docsContentSecurityPolicy(html: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${inlineScripts(html).map(sha256).join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export async function registerDocsPage(app: App): Promise<void> {
  // A context of its own: the policy hook applies to the page's routes only.
  await app.register(async (docs) => {
    docs.addHook('onSend', async (_request, reply, payload) => {
      if (typeof payload !== 'string') return payload;
      const type = String(reply.getHeader('content-type'));
      reply.header('X-Content-Type-Options', 'nosniff');
      // 4.9 MB that changes only with the package: a browser keeps it for an hour.
      if (type.startsWith('application/javascript')) reply.header('Cache-Control', 'public, max-age=3600');
      if (!type.startsWith('text/html')) return payload;
      // The plugin's page names no language; screen readers need one.
      const page = payload.replace('<html>', '<html lang="en">');
      reply.header('Content-Security-Policy', docsContentSecurityPolicy(page));
      return page;
    });
    await docs.register(apiReference, {
      routePrefix: '/docs',
      configuration: {
        // svc's own route serves the document, so the plugin adds no JSON or YAML route of its own.
        url: DOCUMENT_URL,
        pageTitle: DOCS_TITLE,
        favicon: ICON_URL,
        customCss: SVC_CSS,
        // Everything that would leave the server: web fonts, telemetry, the hosted client and agent.
        withDefaultFonts: false,
        telemetry: false,
        hideClientButton: true,
        showDeveloperTools: 'never',
        agent: { disabled: true },
        mcp: { disabled: true },
        defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
        servers: [{ url: '/', description: 'This svc' }],
      },
    });
  });

  const asset = (url: string, svg: string) =>
    app.get(url, { config: { access: access.public(), rateLimit: false }, schema: { hide: true } }, async (_request, reply) => reply.type('image/svg+xml').send(svg));
  asset(ICON_URL, SVC_ICON_SVG);
  asset(LOGO_URL, SVC_LOGO_SVG);
  // The document's other address, kept from the previous docs page.
  app.get('/docs/json', { config: { access: access.public(), rateLimit: false }, schema: { hide: true } }, async () => app.swagger());
}
