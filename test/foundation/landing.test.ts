// GET / tells a newcomer what is running and where to go; /favicon.ico is svc's mark.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => fs.existsSync(path));
const VERSION = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;

describe('the landing page', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('GET / names svc and its version and links to the docs, health and login, as a page with its security headers', async () => {
    const response = await fetch(`${api.baseUrl}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type')!, /^text\/html/);
    assert.match(response.headers.get('content-security-policy')!, /default-src 'none'/);
    const page = await response.text();
    assert.match(page, new RegExp(`version <strong id="version">${VERSION.replaceAll('.', '\\.')}</strong>`));
    for (const href of ['/docs', '/docs/openapi.json', '/health', '/ready', '/auth/login']) assert.ok(page.includes(`href="${href}"`), href);
    const icon = await fetch(`${api.baseUrl}/favicon.ico`);
    assert.deepEqual([icon.status, icon.headers.get('content-type')], [200, 'image/svg+xml']);
    assert.match(await icon.text(), /^<svg /);
  });

  test('in a browser: every link of the page opens', { skip: CHROMIUM ? false : "Debian's chromium is not installed: SKIPPED" }, async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'] });
    try {
      const page = await (await browser.newContext({ baseURL: api.baseUrl })).newPage();
      const errors: string[] = [];
      page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
      await page.goto('/');
      assert.equal(await page.title(), 'svc · svc');
      const hrefs = await page.locator('main a').evaluateAll((links) => links.map((link) => (link as HTMLAnchorElement).getAttribute('href')));
      for (const href of hrefs) {
        const response = await page.request.get(href!);
        assert.equal(response.status(), 200, href!);
      }
      assert.deepEqual(errors, [], 'no console errors (the CSP lets the page render)');
    } finally {
      await browser.close();
    }
  });
});
