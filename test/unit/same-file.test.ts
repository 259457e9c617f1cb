/** The one "same file or conflict" rule both index stores and the publisher use (src/store/same-file.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSameFile } from '../../src/store/same-file.js';

const sha = 'a'.repeat(64);
const blake = 'b'.repeat(64);

test('the same sha256 and blake2b_256 are the same file', () => {
  assert.equal(isSameFile({ sha256: sha, blake2b_256: blake }, { sha256: sha, blake2b_256: blake }), true);
});

test('another sha256 is a conflict whatever the blake2b_256', () => {
  assert.equal(isSameFile({ sha256: sha, blake2b_256: blake }, { sha256: 'c'.repeat(64), blake2b_256: blake }), false);
  assert.equal(isSameFile({ sha256: sha }, { sha256: 'c'.repeat(64) }), false);
});

test('the same sha256 with another blake2b_256 is a conflict', () => {
  assert.equal(isSameFile({ sha256: sha, blake2b_256: blake }, { sha256: sha, blake2b_256: 'c'.repeat(64) }), false);
});

test('a blake2b_256 unknown on either side leaves the decision to the sha256', () => {
  assert.equal(isSameFile({ sha256: sha, blake2b_256: '' }, { sha256: sha, blake2b_256: blake }), true);
  assert.equal(isSameFile({ sha256: sha, blake2b_256: blake }, { sha256: sha, blake2b_256: null }), true);
  assert.equal(isSameFile({ sha256: sha, blake2b_256: blake }, { sha256: sha }), true);
  assert.equal(isSameFile({ sha256: sha }, { sha256: 'c'.repeat(64), blake2b_256: blake }), false);
});
