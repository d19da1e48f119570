import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomainError } from '../../src/lib/errors.js';
import { parsePayloadTemplate, renderPayloadTemplate } from '../../src/modules/webhooks/payload-template.js';
import { assertOutboundUrl, isPublicAddress } from '../../src/lib/outbound-address.js';

const payload = { title: 'Say "hi"\n', organizer: { name: 'Ada' }, attendees: [{ name: 'Bob \\ Jr' }], seats: 3, tags: ['a'] };

describe('payload templates', () => {
  test('a JSON template escapes each value for where it stands', () => {
    const template = parsePayloadTemplate('{"t":"{{title}}","who":"{{organizer.name}} & {{attendees.0.name}}","n":{{seats}},"tags":{{tags}},"missing":{{nope}}}');
    const { body, contentType } = renderPayloadTemplate(template, payload);
    assert.equal(contentType, 'application/json');
    assert.deepEqual(JSON.parse(body), { t: 'Say "hi"\n', who: 'Ada & Bob \\ Jr', n: 3, tags: ['a'], missing: null });
  });

  test('any other template is sent as form-encoded text with the values as they are', () => {
    const { body, contentType } = renderPayloadTemplate(parsePayloadTemplate('title={{title}}&n={{ seats }}'), payload);
    assert.deepEqual([body, contentType], ['title=Say "hi"\n&n=3', 'application/x-www-form-urlencoded']);
  });

  test('templates that cannot render are refused naming payloadTemplate', () => {
    for (const bad of ['{"a":"{{title}"}', '{{ }}', '{{title}} }}', '{"a": {{title}} ,}', '{{organizer-name}}']) {
      assert.throws(() => parsePayloadTemplate(bad), (error: unknown) => error instanceof DomainError && JSON.stringify(error.details).includes('payloadTemplate'), bad);
    }
  });
});

describe('subscriber addresses', () => {
  test('loopback, private, link-local, metadata and mapped addresses are not public', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
      assert.equal(isPublicAddress(address), false, address);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) assert.equal(isPublicAddress(address), true, address);
  });

  test('subscriber URLs must be http(s), credential-free and, unless allowed, public', async () => {
    await assert.rejects(assertOutboundUrl('ftp://example.com/x', true, 'subscriberUrl'));
    await assert.rejects(assertOutboundUrl('https://user:pw@example.com/x', true, 'subscriberUrl'));
    await assert.rejects(assertOutboundUrl('http://127.0.0.1:8080/hook', false, 'subscriberUrl'));
    await assert.rejects(assertOutboundUrl('http://[::1]/hook', false, 'subscriberUrl'));
    await assert.rejects(assertOutboundUrl('http://localhost/hook', false, 'subscriberUrl'));
    await assertOutboundUrl('http://127.0.0.1:8080/hook', true, 'subscriberUrl');
  });
});

describe('payload template placeholders read the payload\'s own properties only', () => {
  const members = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'organizer.constructor.name', 'organizer.__proto__', 'attendees.constructor', 'attendees.map', 'title.constructor', 'title.length'];

  test('prototype members render like an unknown placeholder, in JSON and in text', () => {
    for (const member of members) {
      const json = renderPayloadTemplate(parsePayloadTemplate(`{"v":{{${member}}},"s":"{{${member}}}","t":"{{title}}"}`), payload);
      assert.deepEqual(JSON.parse(json.body), { v: null, s: '', t: 'Say "hi"\n' }, member);
      const text = renderPayloadTemplate(parsePayloadTemplate(`v={{${member}}}&who={{organizer.name}}`), payload);
      assert.equal(text.body, 'v=&who=Ada', member);
    }
  });

  test('real placeholders, array items and an own property named like a prototype member still render', () => {
    const data = { ...payload, responses: JSON.parse('{"constructor":{"value":"own"},"toString":"mine"}') };
    const { body } = renderPayloadTemplate(parsePayloadTemplate('{"c":"{{responses.constructor.value}}","s":"{{responses.toString}}","a":"{{attendees.0.name}}","n":{{seats}},"tags":{{tags}},"first":"{{tags.0}}"}'), data);
    assert.deepEqual(JSON.parse(body), { c: 'own', s: 'mine', a: 'Bob \\ Jr', n: 3, tags: ['a'], first: 'a' });
  });
});
