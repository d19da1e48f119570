import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../app/context.js';
import { projectRoot } from '../db/pglite-snapshot.js';
import { access } from '../http/access.js';
import type { App } from '../http/app.js';
import { SVC_ICON_SVG } from '../http/svc-logo.js';
import { html, sendPage } from './layout.js';
import { PAGE_TAGS, pageSchema } from './page-guards.js';

const VERSION = (JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** `GET /`: what is running and where to go next; `/favicon.ico`: svc's mark. */
export function registerLandingPages(app: App, ctx: AppContext): void {
  app.get('/', {
    config: { access: access.public() },
    schema: pageSchema('Landing page', 'svc web page: the name and version of this server, with links to the API reference, the health check and the login page.'),
    handler: async (_request, reply) =>
      sendPage(reply, 200, {
        title: 'svc',
        body: html`<p>A scheduling API, version <strong id="version">${VERSION}</strong>, on the ${ctx.database.kind === 'pglite' ? 'embedded store' : 'PostgreSQL store'}.</p>
<ul>
<li><a href="/docs">API reference</a> (OpenAPI document: <a href="/docs/openapi.json">/docs/openapi.json</a>)</li>
<li><a href="/health">Health check</a> and <a href="/ready">readiness</a></li>
<li><a href="/auth/login">Log in</a> (OAuth clients, and the system admin's review of them)</li>
</ul>`,
      }),
  });

  app.get('/favicon.ico', {
    config: { access: access.public() },
    schema: { tags: PAGE_TAGS, summary: 'The site icon', description: "svc's mark (SVG), which browsers ask for as /favicon.ico.", produces: ['image/svg+xml'] },
    handler: async (_request, reply) => reply.header('Content-Type', 'image/svg+xml').header('Cache-Control', 'public, max-age=86400').send(SVC_ICON_SVG),
  });
}
