// GET /docs: the API reference a person searches and reads, served whole by svc (no CDN, no request
// leaving 127.0.0.1), under a content security policy, with a curl and a JavaScript sample per operation.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { DOCS_TITLE } from '../../src/http/openapi.js';
import { SVC_ICON_SVG, SVC_LOGO_SVG } from '../../src/http/svc-logo.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => fs.existsSync(path));

describe('the docs page', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('/docs is a page with its own policy, svc\'s title and icons, and the document at both of its addresses', async () => {
    const redirect = await fetch(`${api.baseUrl}/docs`, { redirect: 'manual' });
    assert.deepEqual([redirect.status, redirect.headers.get('location')], [301, '/docs/'], 'relative asset URLs need the trailing slash');

    const page = await fetch(`${api.baseUrl}/docs/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    const html = await page.text();
    assert.match(html, new RegExp(`<title>${DOCS_TITLE}</title>`));
    assert.match(html, /<html lang="en">/);
    assert.match(html, /<script src="js\/scalar\.js"><\/script>/, 'the script is svc\'s own, not a CDN\'s');
    assert.doesNotMatch(html, /https?:\/\/(?!localhost)/, 'the page names no other origin');
    const policy = page.headers.get('content-security-policy')!;
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /connect-src 'self'/);
    assert.match(policy, /script-src 'self' 'sha256-[A-Za-z0-9+/=]+';/);
    assert.doesNotMatch(policy, /script-src[^;]*'unsafe-inline'/, 'inline scripts run by hash only');

    const script = await fetch(`${api.baseUrl}/docs/js/scalar.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type')!, /^application\/javascript/);
    assert.ok((await script.arrayBuffer()).byteLength > 1_000_000, 'the whole reference script is served by svc');

    const documents = await Promise.all(['/docs/openapi.json', '/docs/json'].map(async (path) => (await fetch(`${api.baseUrl}${path}`)).json()));
    assert.equal((documents[0] as { openapi: string }).openapi, '3.1.0');
    assert.deepEqual(documents[1], documents[0]);

    for (const [path, svg] of [['/docs/svc-icon.svg', SVC_ICON_SVG], ['/docs/svc-logo.svg', SVC_LOGO_SVG]] as const) {
      const asset = await fetch(`${api.baseUrl}${path}`);
      assert.match(asset.headers.get('content-type')!, /^image\/svg\+xml/, path);
      assert.equal(await asset.text(), svg, path);
    }
  });

  test('in a browser: search for an operation, open it, read its curl and JavaScript samples; nothing leaves 127.0.0.1', { skip: CHROMIUM ? false : "Debian's chromium is not installed: SKIPPED" }, async () => {
    const { chromium } = await import('playwright-core');
    // Names resolve to nothing but 127.0.0.1: a CDN or font host the page asked for would fail and be seen below.
    const browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'] });
    try {
      const context = await browser.newContext({ baseURL: api.baseUrl, viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      const elsewhere: string[] = [];
      const errors: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(`${api.baseUrl}/`) && !request.url().startsWith('data:')) elsewhere.push(request.url());
      });
      page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
      page.on('pageerror', (error) => errors.push(error.message));
      // Policy violations are events, not always console errors. The bundled zod probes once whether it
      // may compile validators (`try { Function('') } catch`) and, refused, validates without: that
      // refusal is the policy working, and everything else must run without one.
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          if (event.blockedURI !== 'eval') console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
        });
      });

      await page.goto('/docs');
      assert.equal(await page.title(), DOCS_TITLE);
      assert.equal(await page.locator('link[rel="icon"]').first().getAttribute('href'), '/docs/svc-icon.svg');
      // A sidebar by tag.
      const sidebar = page.getByRole('complementary', { name: 'Sidebar for svc scheduling API' });
      for (const tag of ['Schedules', 'Event Types', 'Slots', 'Bookings', 'Webhooks', 'Teams']) await sidebar.getByRole('link', { name: tag, exact: true }).waitFor();

      await sidebar.getByRole('button', { name: /^Open Search/ }).click();
      await page.getByRole('combobox', { name: 'Enter search query' }).fill('reschedule');
      await page.getByRole('option').filter({ hasText: '/v2/bookings/{bookingUid}/reschedule' }).first().click();
      await page.waitForURL(/reschedule/);
      await page.getByRole('heading', { name: 'Reschedule a booking' }).first().waitFor();

      const sample = page.getByRole('group', { name: /^Request Example for/ }).filter({ hasText: '/reschedule' });
      const curl = await sample.innerText();
      assert.match(curl, new RegExp(`curl ${api.baseUrl}/v2/bookings/[0-9a-f-]{36}/reschedule`), 'a curl sample aimed at this server');
      assert.match(curl, /svc-api-version: 2024-08-13/);
      assert.match(curl, /"reschedulingReason": "A conflict came up"/, 'the sample sends the documented example');

      await sample.getByTestId('client-picker').click();
      await page.getByRole('option', { name: 'Fetch', exact: true }).first().click();
      const javascript = await sample.innerText();
      assert.match(javascript, /JavaScript Fetch/);
      assert.match(javascript, new RegExp(`fetch\\('${api.baseUrl}/v2/bookings/[0-9a-f-]{36}/reschedule'`), 'a JavaScript sample');

      assert.deepEqual(elsewhere, [], 'no request left 127.0.0.1');
      assert.deepEqual(errors, [], 'no console errors or policy violations');
    } finally {
      await browser.close();
    }
  });
});
