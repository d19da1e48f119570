import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/app/config.js';
import { lazySecretBox, parseEncryptionKey, secretBox } from '../../src/lib/secrets.js';

test('sealed secrets open with the same key only, and never show the secret', () => {
  const key = parseEncryptionKey('ab'.repeat(32))!;
  const sealed = secretBox(key).seal('whsec-shhh');
  assert.ok(!sealed.includes('whsec') && sealed.startsWith('v1:'));
  assert.notEqual(secretBox(key).seal('whsec-shhh'), sealed, 'a fresh IV every time');
  assert.equal(secretBox(key).open(sealed), 'whsec-shhh');
  assert.throws(() => secretBox(parseEncryptionKey('cd'.repeat(32))!).open(sealed));
  const tampered = `v1:${Buffer.from(Buffer.from(sealed.slice(3), 'base64').map((byte, i) => (i === 30 ? byte ^ 1 : byte))).toString('base64')}`;
  assert.throws(() => secretBox(key).open(tampered));
});

test('without SVC_ENCRYPTION_KEY a key is generated once into the data dir, owner-only', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-secrets-'));
  try {
    const sealed = lazySecretBox(undefined, dir).seal('x');
    const file = path.join(dir, 'encryption.key');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(lazySecretBox(undefined, dir).open(sealed), 'x', 'a restart reads the same key');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('SVC_ENCRYPTION_KEY must be 32 bytes', () => {
  assert.throws(() => loadConfig({ SVC_ENCRYPTION_KEY: 'short' }), ConfigError);
  assert.equal(loadConfig({ SVC_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }).encryptionKey?.length, 32);
});
