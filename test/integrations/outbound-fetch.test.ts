import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { OutboundError, outboundFetch } from '../../src/integrations/outbound-fetch.js';

let server: http.Server;
let base: string;

before(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/feed') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain', etag: '"v1"' }).end(`${req.method} ${req.headers['x-test'] ?? ''} ${body}`));
      return;
    }
    if (req.url === '/hop') return void res.writeHead(302, { location: '/feed' }).end();
    if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
    if (req.url === '/big') return void res.writeHead(200).end('x'.repeat(10_000));
    if (req.url === '/slow') return; // never answers
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const policy = { allowPrivate: true, timeoutMs: 2_000, maxResponseBytes: 5_000 };
const rejectsWith = (reason: OutboundError['reason']) => (error: unknown) => error instanceof OutboundError && error.reason === reason;

describe('outboundFetch', () => {
  test('sends method, headers and body, and answers a Response', async () => {
    const answer = await outboundFetch(policy)(`${base}/feed`, { method: 'REPORT', headers: { 'x-test': 'yes' }, body: 'hello' });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('etag'), '"v1"');
    assert.equal(await answer.text(), 'REPORT yes hello');
  });

  test('refuses loopback addresses and names unless private targets are allowed', async () => {
    const guarded = outboundFetch({ ...policy, allowPrivate: false });
    await assert.rejects(guarded(`${base}/feed`), rejectsWith('refused_address'));
    await assert.rejects(guarded(`http://localhost:${new URL(base).port}/feed`), rejectsWith('refused_address'));
  });

  test('follows a redirect, and stops a loop', async () => {
    assert.equal(await (await outboundFetch(policy)(`${base}/hop`)).text(), 'GET  ');
    await assert.rejects(outboundFetch(policy)(`${base}/loop`), rejectsWith('too_many_redirects'));
  });

  test('a larger answer than allowed fails, and so does one that takes too long', async () => {
    await assert.rejects(outboundFetch(policy)(`${base}/big`), rejectsWith('too_large'));
    await assert.rejects(outboundFetch({ ...policy, timeoutMs: 200 })(`${base}/slow`), rejectsWith('timeout'));
  });
});
