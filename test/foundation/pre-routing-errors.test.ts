import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** Sends raw bytes and returns what came back before the server closed or the reply ended. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
  });
}

function parse(answer: string): { status: number; body: any } {
  const [head, ...rest] = answer.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head!)?.[1]);
  return { status, body: JSON.parse(rest.join('\r\n\r\n')) };
}

// Node answers these before any route runs; the reference (behind Node's parser too) sends Fastify's
// or Node's own bodies. svc sends its error envelope for every 4xx/5xx, these included.
describe('errors raised before routing come back in the error envelope', () => {
  let api: TestApp;
  let port: number;
  before(async () => {
    api = await createTestApp();
    port = Number(new URL(api.baseUrl).port);
  });
  after(() => api.close());

  const cases: [string, string, number, string][] = [
    ['headers over the size limit', `GET /v2/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'RequestHeaderFieldsTooLargeException'],
    ['a request line that is not HTTP', 'BLAH\r\n\r\n', 400, 'BadRequestException'],
    ['a malformed Content-Length', 'POST /v2/me HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, 'BadRequestException'],
    ['a control character in a header value', 'GET /v2/me HTTP/1.1\r\nHost: x\r\nsvc-api-version: \x01\r\n\r\n', 400, 'BadRequestException'],
    ['a URL that cannot be decoded', 'GET /v2/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400, 'BadRequestException'],
  ];
  for (const [what, request, status, code] of cases) {
    test(what, async () => {
      const answer = parse(await rawExchange(port, request));
      assert.equal(answer.status, status);
      assert.equal(answer.body.status, 'error');
      assert.equal(answer.body.error.code, code);
      assert.equal(typeof answer.body.error.message, 'string');
      assert.ok(!Number.isNaN(Date.parse(answer.body.timestamp)));
      assert.equal(typeof answer.body.path, 'string');
      assert.equal(answer.body.statusCode, undefined, 'not Fastify\'s own body');
    });
  }

  test('the server keeps serving after them', async () => {
    assert.equal((await api.request('GET', '/health')).status, 200);
  });
});
