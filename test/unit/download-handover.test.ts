/** Which parts a node resuming a shared download starts from (handover.ts): from byte 0, without a gap, overlaps allowed. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromTheStart } from '../../src/download/handover.js';

test('parts from byte 0 without a gap: every one is used, and the upstream is asked from their end', () => {
  assert.deepEqual(
    fromTheStart([
      { offset: 0, size: 10 },
      { offset: 10, size: 5 },
    ]),
    {
      segments: [
        { offset: 0, start: 0, end: 9 },
        { offset: 10, start: 0, end: 4 },
      ],
      offset: 15,
    },
  );
});

test('parts of two holders cut at other offsets: each byte is read once, from the part that covers it', () => {
  assert.deepEqual(
    fromTheStart([
      { offset: 0, size: 10 },
      { offset: 4, size: 4 },
      { offset: 8, size: 8 },
      { offset: 12, size: 2 },
    ]),
    {
      segments: [
        { offset: 0, start: 0, end: 9 },
        { offset: 8, start: 2, end: 7 },
      ],
      offset: 16,
    },
  );
});

test('a gap (a part removed, or not written): nothing after it is used; no part at 0: the upstream is asked from the start', () => {
  assert.deepEqual(
    fromTheStart([
      { offset: 0, size: 10 },
      { offset: 11, size: 5 },
    ]).offset,
    10,
  );
  assert.deepEqual(fromTheStart([{ offset: 5, size: 10 }]), { segments: [], offset: 0 });
  assert.deepEqual(fromTheStart([]), { segments: [], offset: 0 });
});
