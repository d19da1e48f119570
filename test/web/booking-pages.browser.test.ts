// svc's booking pages in a real browser (Debian's chromium through playwright-core), with an axe-core
// check of every page (no serious or critical violation): a guest whose browser is in Asia/Kathmandu books
// a personal event type (the page finds the zone, a day's times load in place, the time shown is the time
// booked); a guest in America/St_Johns books a round-robin team event type; the mailed link reschedules
// and the page cancels; a time taken meanwhile gives a clear message and fresh times; a hidden type and an
// expired private link are refused; the pages fit a 320 px screen; inside a frame on an allowed origin the
// page tells its parent of the booking. A failing test leaves a screenshot in test-output/booking-pages/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { booked, BOOKINGS_VERSION } from '../bookings/helpers.js';
import { startSmtpReceiver, type SmtpReceiver } from '../mail/helpers.js';
import { createEventType, createHost, type Host } from '../slots/helpers.js';
import { eventually } from '../support/eventually.js';
import { createTeamWithEventType } from '../support/team-scheduling.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => fs.existsSync(candidate));
const SKIP = CHROMIUM ? false : "Debian's chromium is not installed (apt-get install -y chromium): the browser tests are SKIPPED";
const SHOTS = path.resolve('test-output', 'booking-pages');

describe('booking pages in a browser', { skip: SKIP }, () => {
  let api: TestApp;
  let smtp: SmtpReceiver;
  let browser: Browser;
  let embedder: http.Server;
  let embedOrigin: string;
  let host: Host;
  let eventType: any;

  before(async () => {
    // A site that embeds the booking page: its origin is allowed to frame it.
    embedder = http.createServer((request, response) => {
      const target = new URL(request.url ?? '/', 'http://x').searchParams.get('page') ?? '';
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<!doctype html><title>Shop</title><script>window.received=[];addEventListener('message',(e)=>window.received.push({origin:e.origin,data:e.data}))</script><iframe title="Booking" src="${target}" width="800" height="900"></iframe>`);
    });
    await new Promise<void>((resolve) => embedder.listen(0, '127.0.0.1', resolve));
    embedOrigin = `http://127.0.0.1:${(embedder.address() as AddressInfo).port}`;
    smtp = await startSmtpReceiver();
    api = await createTestApp({ SMTP_URL: smtp.url, SVC_EMBED_ORIGINS: embedOrigin });
    (api.config as { appUrl: string }).appUrl = api.baseUrl;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'] });
    host = await createHost(api, 'Europe/London');
    eventType = await createEventType(api, host, {
      title: 'Intro call',
      lengthInMinutes: 30,
      bookingFields: [{ type: 'select', slug: 'topic', label: 'Topic', required: true, options: ['Sales', 'Support'] }],
    });
  });
  after(async () => {
    await browser?.close();
    await api?.close();
    await smtp?.close();
    await new Promise((resolve) => embedder?.close(resolve));
  });

  /** A browser in `timezoneId`; on failure the page's screenshot goes to test-output/booking-pages/<name>.png. */
  async function inBrowser(name: string, timezoneId: string, run: (page: Page, context: BrowserContext) => Promise<void>, viewport = { width: 1000, height: 900 }) {
    const context = await browser.newContext({ baseURL: api.baseUrl, timezoneId, locale: 'en-US', viewport });
    const page = await context.newPage();
    try {
      await run(page, context);
    } catch (error) {
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true }).catch(() => undefined);
      throw error;
    } finally {
      await context.close();
    }
  }

  /** axe-core on the page as it is: no serious or critical violation. */
  async function accessible(page: Page, where: string) {
    const { default: AxeBuilder } = await import('@axe-core/playwright');
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
    assert.deepEqual(
      serious.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`),
      [],
      `accessibility of ${where}`,
    );
  }

  const bookingOf = async (page: Page) => {
    const uid = new URL(page.url()).pathname.split('/')[2]!;
    return (await api.request('GET', `/v2/bookings/${uid}`, { version: BOOKINGS_VERSION })).body.data;
  };

  test('a guest in Asia/Kathmandu: the page finds the zone, a day loads in place, the time shown is the time booked', async () => {
    await inBrowser('personal', 'Asia/Kathmandu', async (page) => {
      await page.goto(`/${host.username}/${eventType.slug}?month=2027-04`);
      await page.waitForURL(/tz=Asia%2FKat(h)?mandu/);
      await accessible(page, 'the book page');
      await page.getByRole('link', { name: /^Monday, April 5, 2027: 16 times available/ }).click();
      await page.getByRole('heading', { name: 'Times on Monday, April 5, 2027' }).waitFor();
      assert.match(page.url(), /date=2027-04-05/, 'the address follows the day picked');
      assert.equal(await page.getByRole('link', { name: /^Monday, April 5, 2027/ }).getAttribute('aria-current'), 'date');
      await page.getByRole('link', { name: '1:45 PM', exact: true }).click();
      await page.getByRole('heading', { name: 'Your details' }).waitFor();
      await accessible(page, 'the booking form');
      await page.getByLabel('Your name').fill('Kiran Guest');
      await page.getByLabel('Email address').fill('kiran.browser@example.com');
      await page.getByLabel('Topic').selectOption('Support');
      await page.getByRole('button', { name: 'Book' }).click();
      await page.getByRole('heading', { name: 'This meeting is scheduled' }).waitFor();
      await accessible(page, 'the confirmation');
      assert.match(await page.locator('#your-time').innerText(), /Monday, April 5, 2027 at 1:45 PM \(Asia\/Kat(h)?mandu\)/);
      assert.match(await page.locator('#host-time').innerText(), /9:00 AM \(Europe\/London\)/);
      const made = await bookingOf(page);
      assert.equal(made.start, '2027-04-05T08:00:00.000Z');
      assert.match(made.attendees[0].timeZone, /^Asia\/Kat(h)?mandu$/);
    });
  });

  test('a guest in America/St_Johns books a round-robin team event type', async () => {
    const members = [await createHost(api, 'Europe/London'), await createHost(api, 'Europe/London')];
    const { team, eventType: teamType } = await createTeamWithEventType(api, members, { title: 'Support rota', lengthInMinutes: 30, schedulingType: 'roundRobin' });
    await inBrowser('round-robin', 'America/St_Johns', async (page) => {
      await page.goto(`/team/${team.slug}/${teamType.slug}?month=2027-04&date=2027-04-06`);
      await page.waitForURL(/tz=America%2FSt_Johns/);
      // London 09:00 BST is 05:30 in Newfoundland (NDT, -02:30).
      await page.getByRole('link', { name: '5:30 AM', exact: true }).click();
      await page.getByLabel('Your name').fill('Nell');
      await page.getByLabel('Email address').fill('nell@example.com');
      await page.getByRole('button', { name: 'Book' }).click();
      await page.getByRole('heading', { name: 'This meeting is scheduled' }).waitFor();
      const made = await bookingOf(page);
      assert.equal(made.start, '2027-04-06T08:00:00.000Z');
      assert.ok(members.some((member) => member.userId === made.hosts[0].id));
    });
  });

  test("the mailed link reschedules it; the booking's page cancels it", async () => {
    const made = await booked(api, { eventTypeId: eventType.id, start: '2027-04-07T10:00:00.000Z', attendee: { name: 'Mo', email: 'mo.browser@example.com', timeZone: 'Asia/Kolkata' }, bookingFieldsResponses: { topic: 'Sales' } });
    await eventually(async () => smtp.to('mo.browser@example.com').length > 0, 10_000);
    const link = /Reschedule: (\S+)/.exec(smtp.to('mo.browser@example.com').at(-1)!.email.text!)![1]!;
    await inBrowser('reschedule-cancel', 'Asia/Kolkata', async (page) => {
      await page.goto(link);
      // Chromium names India's zone Asia/Calcutta (its older name): the page takes the browser's word.
      await page.getByText(/Currently booked for Wednesday, April 7, 2027 at 3:30 PM \(Asia\/(Kolkata|Calcutta)\)/).waitFor();
      await accessible(page, 'the reschedule page');
      await page.getByRole('link', { name: /^Thursday, April 8, 2027/ }).click();
      await page.getByRole('heading', { name: 'Times on Thursday, April 8, 2027' }).waitFor();
      await page.getByRole('link', { name: '1:30 PM', exact: true }).click();
      await page.getByLabel('Reason for rescheduling').fill('A clash');
      await page.getByRole('button', { name: 'Reschedule' }).click();
      await page.getByRole('heading', { name: 'This meeting was rescheduled' }).waitFor();
      const moved = await bookingOf(page);
      assert.equal(moved.start, '2027-04-08T08:00:00.000Z');
      assert.notEqual(moved.uid, made.uid);

      await page.getByRole('link', { name: 'Cancel' }).click();
      await page.getByRole('heading', { name: 'Cancel this meeting' }).waitFor();
      await accessible(page, 'the cancel form');
      await page.getByLabel('Reason for cancelling').fill('Plans changed');
      await page.getByRole('button', { name: 'Cancel the meeting' }).click();
      await page.getByRole('heading', { name: 'This meeting is cancelled' }).waitFor();
      assert.equal((await bookingOf(page)).status, 'cancelled');
      assert.equal(await page.getByRole('link', { name: 'Reschedule' }).count(), 0);
    });
  });

  test('a time taken meanwhile: a clear message and the times still free', async () => {
    await inBrowser('taken', 'UTC', async (page) => {
      await page.goto(`/${host.username}/${eventType.slug}?month=2027-04&date=2027-04-09&tz=UTC`);
      await page.getByRole('link', { name: '8:00 AM', exact: true }).click();
      await page.getByLabel('Your name').fill('Late');
      await page.getByLabel('Email address').fill('late.browser@example.com');
      await page.getByLabel('Topic').selectOption('Sales');
      await booked(api, { eventTypeId: eventType.id, start: '2027-04-09T08:00:00.000Z', bookingFieldsResponses: { topic: 'Sales' } });
      await page.getByRole('button', { name: 'Book' }).click();
      await page.getByRole('alert').filter({ hasText: 'That time was taken a moment ago' }).waitFor();
      assert.equal(await page.getByRole('link', { name: '8:00 AM', exact: true }).count(), 0);
      assert.equal(await page.getByRole('link', { name: '8:30 AM', exact: true }).count(), 1);
      await accessible(page, 'the picker after a refusal');
    });
  });

  test('a hidden event type and an expired private link are refused', async () => {
    const hidden = await createEventType(api, host, { title: 'Secret', lengthInMinutes: 30, hidden: true });
    const expired = (await api.request('POST', `/v2/event-types/${hidden.id}/private-links`, { key: host.apiKey, body: { expiresAt: '2020-01-01T00:00:00Z' } })).body.data;
    await inBrowser('refused', 'UTC', async (page) => {
      const direct = await page.goto(`/${host.username}/${hidden.slug}`);
      assert.equal(direct!.status(), 404);
      await page.getByText('not open for booking').waitFor();
      await accessible(page, 'the refusal page');
      const linked = await page.goto(`/d/${expired.linkId}/${hidden.slug}`);
      assert.equal(linked!.status(), 404);
      await page.getByText('has expired').waitFor();
    });
  });

  test('readable at 320 px: nothing wider than the screen', async () => {
    await inBrowser(
      'narrow',
      'Europe/Paris',
      async (page) => {
        await page.goto(`/${host.username}/${eventType.slug}?month=2027-04&date=2027-04-12`);
        await page.waitForURL(/tz=Europe%2FParis/);
        assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 320, 'the picker fits');
        await page.getByRole('link', { name: '10:00 AM', exact: true }).click();
        await page.getByRole('heading', { name: 'Your details' }).waitFor();
        assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 320, 'the form fits');
      },
      { width: 320, height: 700 },
    );
  });

  test('framed on an allowed origin, the page tells its parent of the booking', async () => {
    await inBrowser('embedded', 'UTC', async (page) => {
      const target = `${api.baseUrl}/${host.username}/${eventType.slug}?month=2027-04&date=2027-04-13&tz=UTC`;
      await page.goto(`${embedOrigin}/?page=${encodeURIComponent(target)}`);
      const frame = page.frameLocator('iframe');
      await frame.getByRole('link', { name: '8:00 AM', exact: true }).click();
      await frame.getByLabel('Your name').fill('Emma Embed');
      await frame.getByLabel('Email address').fill('emma@example.com');
      await frame.getByLabel('Topic').selectOption('Sales');
      await frame.getByRole('button', { name: 'Book' }).click();
      await frame.getByRole('heading', { name: 'This meeting is scheduled' }).waitFor();
      const received = await page.waitForFunction(() => (window as unknown as { received: unknown[] }).received.length > 0).then(() => page.evaluate(() => (window as unknown as { received: any[] }).received));
      assert.equal(received[0].origin, api.baseUrl);
      assert.deepEqual([received[0].data.originator, received[0].data.type, received[0].data.data.startTime], ['SVC', 'bookingSuccessful', '2027-04-13T08:00:00.000Z']);
      assert.equal(received[0].data.data.attendees, undefined, 'no attendee details go to the parent');
    });
  });
});
