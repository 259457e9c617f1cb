/** The per-project marks that tell a build from cached-file facts whether a file of the project was recorded since. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FileRecordMarks } from '../../src/cache/file-record-marks.js';

describe('FileRecordMarks', () => {
  test("a project's mark moves when one of its files is recorded, and only then", () => {
    const marks = new FileRecordMarks();
    const a = marks.mark('a');
    const b = marks.mark('b');
    marks.recorded('a');
    assert.notEqual(marks.mark('a'), a);
    assert.equal(marks.mark('b'), b);
    const again = marks.mark('a');
    assert.equal(marks.mark('a'), again);
    marks.recorded('a');
    assert.notEqual(marks.mark('a'), again);
  });

  test('bounded: a forgotten project never reads as unchanged after a record, and one recorded before reads as changed at worst', () => {
    const marks = new FileRecordMarks(2);
    const before = marks.mark('a');
    marks.recorded('a');
    const recorded = marks.mark('a');
    assert.notEqual(recorded, before);
    marks.recorded('b');
    marks.recorded('c');
    // 'a' is forgotten: its mark is the highest forgotten one, never back to what it was before its record.
    assert.notEqual(marks.mark('a'), before);
    const forgotten = marks.mark('a');
    marks.recorded('a');
    assert.notEqual(marks.mark('a'), forgotten);
  });
});
