import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { redactUrl } from '../../src/http/redact.js';
import { freshStore, killAllChildren, startServer, type Store } from '../support/child-server.js';
import { request } from '../support/test-app.js';

const SECRET = 'svc_5ec2e7000000000000000000000000aa';
let store: Store | undefined;
after(async () => {
  await killAllChildren();
  await store?.remove();
});

describe('credentials in query strings', () => {
  test('redactUrl hides the values of credential parameters, whatever their case or escaping, and keeps the rest', () => {
    assert.equal(redactUrl('/v2/me'), '/v2/me');
    assert.equal(redactUrl(`/v1/teams?apiKey=${SECRET}&take=5`), '/v1/teams?apiKey=[REDACTED]&take=5');
    assert.equal(redactUrl(`/x?APIKEY=${SECRET}&a%70iKey=${SECRET}&client_secret=s&code=c&refresh_token=r`), '/x?APIKEY=[REDACTED]&a%70iKey=[REDACTED]&client_secret=[REDACTED]&code=[REDACTED]&refresh_token=[REDACTED]');
    assert.equal(redactUrl('/x?apiKey&y=1'), '/x?apiKey&y=1');
  });

  test('an apiKey sent in the query string reaches neither the request log nor an error body', async () => {
    store = await freshStore();
    const server = await startServer(store.env);
    const paths = [`/v2/me?apiKey=${SECRET}`, `/v2/nowhere?apiKey=${SECRET}`, `/v2/slots?apiKey=${SECRET}&start=bad`];
    for (const path of paths) {
      const response = await request(server.baseUrl, 'GET', path);
      assert.ok(response.status >= 400, `${path}: ${response.status}`);
      assert.ok(!response.text.includes(SECRET), response.text);
      assert.match(response.body.path, /apiKey=\[REDACTED\]/);
    }
    await server.stop();
    const logged = server.stdout() + server.stderr();
    assert.ok(logged.includes('apiKey=[REDACTED]'), 'the request lines are logged, redacted');
    assert.ok(!logged.includes(SECRET.slice(4)), 'no trace of the key in the log');
  });
});
