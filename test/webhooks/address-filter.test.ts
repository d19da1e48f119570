// Webhook subscriber addresses are judged by what they mean, not how they are written: every form
// that reaches loopback, private, link-local or other internal space is refused (when a subscription
// is written, and again when a delivery connects), and ordinary public addresses are accepted.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { assertOutboundUrl, isPublicAddress, publicOnlyLookup } from '../../src/lib/outbound-address.js';
import { createSender } from '../../src/modules/webhooks/webhook-delivery.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** Subscriber URLs that reach inside, each in a spelling the filter once let through or always refused. */
const INTERNAL_URLS = [
  // IPv4-compatible (::a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d) and 6to4 (2002:a.b.c.d::) forms.
  'http://[::127.0.0.1]/hook',
  'http://[::7f00:1]/hook',
  'http://[::ffff:0:127.0.0.1]/hook',
  'http://[::a9fe:a9fe]/hook',
  'http://[::10.0.0.1]/hook',
  'http://[2002:7f00:1::]/hook',
  // NAT64, Teredo, documentation, site-local, discard.
  'http://[64:ff9b::7f00:1]/hook',
  'http://[64:ff9b:1::a00:1]/hook',
  'http://[2001::7f00:1]/hook',
  'http://[2001:db8::1]/hook',
  'http://[fec0::1]/hook',
  'http://[100::1]/hook',
  // The usual forms.
  'http://127.0.0.1/hook',
  'http://10.1.2.3/hook',
  'http://169.254.169.254/latest/meta-data',
  'http://[::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[::ffff:169.254.169.254]/hook',
  'http://[fe80::1]/hook',
  'http://[fc00::1]/hook',
  'http://[fd12:3456::1]/hook',
  'http://0.0.0.0/hook',
  'http://100.64.0.1/hook',
  'http://192.0.2.1/hook',
  'http://255.255.255.255/hook',
  // Other spellings of 127.0.0.1 that URL parsing turns into it.
  'http://2130706433/hook',
  'http://0x7f.1/hook',
];

const PUBLIC_URLS = ['http://93.184.215.14/hook', 'https://8.8.8.8/hook', 'http://[2606:4700::1111]/hook', 'http://[2a00:1450:4001:830::200e]/hook', 'http://[::ffff:93.184.215.14]/hook'];

const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');

describe('isPublicAddress and assertOutboundUrl', () => {
  test('every internal address is refused, however it is written', async () => {
    for (const url of INTERNAL_URLS) {
      assert.equal(isPublicAddress(hostOf(url)), false, url);
      await assert.rejects(assertOutboundUrl(url, false, 'subscriberUrl'), (error: Error & { details?: unknown }) => JSON.stringify(error.details).includes('subscriberUrl'), url);
      // Allowed explicitly (tests, local development), they are accepted.
      await assertOutboundUrl(url, true, 'subscriberUrl');
    }
  });

  test('ordinary public addresses are accepted', async () => {
    for (const url of PUBLIC_URLS) {
      assert.equal(isPublicAddress(hostOf(url)), true, url);
      await assertOutboundUrl(url, false, 'subscriberUrl');
    }
  });

  test('what is not an address is not public', () => {
    for (const text of ['', 'localhost', 'example.com', '127.1', '::ffff:127.0.0.1%eth0x', '1.2.3.4.5']) assert.equal(isPublicAddress(text), false, text);
  });

  test('the connect-time lookup refuses a name that resolves inside', async () => {
    const lookup = publicOnlyLookup(false);
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => lookup('localhost', { all: true }, (failure) => resolve(failure)));
    assert.equal(error?.code, 'ESVCPRIVATE');
  });
});

describe('the sender refuses internal address literals without connecting', () => {
  let server: http.Server;
  let port: number;
  let hits = 0;
  before(async () => {
    server = http.createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('IPv4-compatible, IPv4-translated, mapped and loopback literals', async () => {
    const sender = createSender({ timeoutMs: 2_000, allowPrivate: false, maxSockets: 1 });
    try {
      for (const host of ['[::127.0.0.1]', '[::7f00:1]', '[::ffff:0:127.0.0.1]', '[::ffff:127.0.0.1]', '[::1]', '127.0.0.1']) {
        const outcome = await sender.send(`http://${host}:${port}/hook`, '{}', {});
        assert.equal(outcome.statusCode, null, host);
        assert.match(String(outcome.error), /^refused: .* is a non-public address$/, host);
      }
      assert.equal(hits, 0);
    } finally {
      sender.close();
    }
  });
});

describe('POST /v2/webhooks with private subscribers not allowed', () => {
  let api: TestApp;
  let apiKey: string;
  before(async () => {
    api = await createTestApp({ SVC_ALLOW_PRIVATE_WEBHOOKS: '0' });
    ({ apiKey } = await api.createUser());
  });
  after(() => api.close());

  const subscribe = (subscriberUrl: string) => api.request('POST', '/v2/webhooks', { key: apiKey, body: { subscriberUrl, active: true, triggers: ['BOOKING_CREATED'] } });

  test('internal subscribers answer 400 naming subscriberUrl and the switch that allows them', async () => {
    for (const url of INTERNAL_URLS) {
      const response = await subscribe(url);
      assert.equal(response.status, 400, `${url}: ${response.text}`);
      assert.match(response.body.error.message, /SVC_ALLOW_PRIVATE_WEBHOOKS=1: it is read at start, so restart svc/, url);
      assert.deepEqual(
        response.body.error.details.errors.map((error: { property: string }) => error.property),
        ['subscriberUrl'],
        url,
      );
    }
  });

  test('public subscribers are created, and a PATCH to an internal one is refused', async () => {
    for (const url of PUBLIC_URLS) {
      const response = await subscribe(url);
      assert.equal(response.status, 201, `${url}: ${response.text}`);
      assert.equal(response.body.data.subscriberUrl, url);
    }
    const created = await subscribe('http://93.184.215.14/other');
    assert.equal(created.status, 201, created.text);
    const patched = await api.request('PATCH', `/v2/webhooks/${created.body.data.id}`, { key: apiKey, body: { subscriberUrl: 'http://[::ffff:0:127.0.0.1]/hook' } });
    assert.equal(patched.status, 400, patched.text);
    assert.equal(patched.body.error.details.errors[0].property, 'subscriberUrl');
  });
});
