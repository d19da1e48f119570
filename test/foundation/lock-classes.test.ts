// svc's advisory lock classes are distinct: two with one number would make unrelated writes wait on each other.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOCK_CLASSES } from '../../src/db/locks.js';

test('every advisory lock class has a number of its own', () => {
  const numbers = Object.values(LOCK_CLASSES);
  assert.equal(new Set(numbers).size, numbers.length, JSON.stringify(LOCK_CLASSES));
});
