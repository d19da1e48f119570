// The payment step of the booking pages in a real browser (Debian's chromium through playwright-core), with
// the local Stripe: a guest books a paid event type (its price shown on the book page), the confirmation
// asks for the payment (the amount, until when the time is held, a link to Stripe's page for this booking,
// no reschedule link or calendar links yet), Stripe's return while its event is still on the way says so,
// and once Stripe's webhook has confirmed it the page shows the booking paid; every page passes axe-core.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { connectStripe, createPaidEventType, paymentRow, stripeEnv } from '../payments/helpers.js';
import { type FakeStripe, startFakeStripe } from '../support/fake-stripe.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => fs.existsSync(candidate));
const SKIP = CHROMIUM ? false : "Debian's chromium is not installed (apt-get install -y chromium): the browser tests are SKIPPED";
const SHOTS = path.resolve('test-output', 'booking-pages');

describe('the payment step of the booking pages in a browser', { skip: SKIP }, () => {
  let api: TestApp;
  let stripe: FakeStripe;
  let browser: Browser;
  let username: string;
  let slug: string;

  before(async () => {
    stripe = await startFakeStripe();
    api = await createTestApp(stripeEnv(stripe));
    (api.config as { appUrl: string }).appUrl = api.baseUrl;
    stripe.webhookUrl = `${api.baseUrl}/v2/stripe/webhook`;
    const host = await api.createUser({ timeZone: 'Europe/London', name: 'Dr Paid' });
    username = host.user.username;
    assert.equal((await connectStripe(api, host.apiKey)).status, 200);
    slug = 'paid-consultation';
    await createPaidEventType(api, host.apiKey, { slug, title: 'Paid consultation', price: 4550, currency: 'gbp' });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'] });
  });
  after(async () => {
    await browser?.close();
    await api?.close();
    await stripe?.close();
  });

  async function accessible(page: Page, where: string) {
    const { default: AxeBuilder } = await import('@axe-core/playwright');
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
    assert.deepEqual(serious.map((violation) => `${violation.id}: ${violation.help}`), [], `accessibility of ${where}`);
  }

  test('book, pay on Stripe, come back: the page asks for the payment, then shows the booking paid', async () => {
    const context = await browser.newContext({ baseURL: api.baseUrl, timezoneId: 'Asia/Kolkata', locale: 'en-GB', viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(`/${username}/${slug}?month=2027-04&date=2027-04-06`);
      await page.waitForURL(/tz=Asia%2F(Kolkata|Calcutta)/);
      assert.match(await page.locator('.facts').innerText(), /£45\.50/);
      await page.getByRole('link', { name: '3:30 PM', exact: true }).click();
      await page.getByLabel('Your name').fill('Priya Guest');
      await page.getByLabel('Email address').fill('priya.payer@example.com');
      await page.getByRole('button', { name: 'Book' }).click();
      await page.getByRole('heading', { name: 'Complete your payment' }).waitFor();
      await accessible(page, 'the payment step');
      const uid = new URL(page.url()).pathname.split('/')[2]!;
      const booking = (await api.request('GET', `/v2/bookings/${uid}`, { version: BOOKINGS_VERSION })).body.data;
      assert.deepEqual([booking.status, booking.payment.status, booking.start], ['pending', 'awaiting', '2027-04-06T10:00:00.000Z']);
      const pay = page.locator('#pay-link');
      assert.equal(await pay.innerText(), 'Pay £45.50');
      assert.equal(await pay.getAttribute('href'), booking.payment.paymentLink);
      // The hold's end in the guest's zone: 30 minutes from now, in Kolkata.
      const until = new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Kolkata', hour: 'numeric', minute: '2-digit' }).format(new Date(booking.payment.expiresAt));
      assert.ok((await page.locator('main').innerText()).includes(until), until);
      assert.equal(await page.locator('#reschedule-link').count(), 0, 'an unpaid booking cannot be moved');
      assert.equal(await page.getByRole('link', { name: 'Google Calendar' }).count(), 0, 'not in calendars before it is paid');
      assert.match(await page.locator('#payment-state').innerText(), /£45\.50 · Not paid yet/);

      // Stripe sends the browser back before its event has arrived: the page says so.
      const row = (await paymentRow(api.runtime.ctx.database.db, booking.payment.uid))!;
      await page.goto(`/booking/${uid}?payment=paid`);
      await page.getByText('Stripe is confirming your payment').waitFor();

      const paid = await stripe.pay(row.checkout_session_id);
      assert.equal(paid.status, 200, paid.body);
      await page.reload();
      await page.getByRole('heading', { name: 'Paid consultation' }).waitFor();
      assert.match(await page.locator('#payment-state').innerText(), /£45\.50 · Paid/);
      assert.equal(await page.locator('#pay-link').count(), 0);
      await page.locator('#reschedule-link').waitFor();
      await accessible(page, 'the paid booking');
    } catch (error) {
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'payment.png'), fullPage: true }).catch(() => undefined);
      throw error;
    } finally {
      await context.close();
    }
  });
});
