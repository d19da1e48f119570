import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPassword, verifyPassword } from '../../src/lib/crypto.js';

test('passwords are stored as salted scrypt hashes that verify only the right password', async () => {
  const stored = await hashPassword('correct horse battery');
  assert.match(stored, /^scrypt\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
  assert.ok(!stored.includes('correct horse'));
  assert.notEqual(await hashPassword('correct horse battery'), stored, 'a fresh salt each time');
  assert.equal(await verifyPassword('correct horse battery', stored), true);
  assert.equal(await verifyPassword('correct horse batterY', stored), false);
  assert.equal(await verifyPassword('x', 'not-a-hash'), false);
});
