/** The checks of the project names, versions and file names a client sends. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LarderError } from '../../src/base/errors.js';
import { normalizeName } from '../../src/model/names.js';
import { checkFilenameSegment, checkProjectName, checkVersionSegment } from '../../src/model/client-names.js';

function refused(run: () => void, status: number, message: string | RegExp): void {
  assert.throws(run, (err: unknown) => {
    assert.ok(err instanceof LarderError, String(err));
    assert.equal(err.status, status);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

const RULE = "names are 1 to 200 letters, digits, '.', '-' or '_', starting and ending with a letter or digit (PEP 508).";

describe('checkProjectName', () => {
  test('PEP 508 names of 1 to 200 characters pass', () => {
    for (const name of ['a', '7', 'Foo.Bar_baz-1', 'x'.repeat(200), `a${'-'.repeat(198)}b`]) checkProjectName(name);
  });

  test('anything else is a 400 naming the rule, on one line', () => {
    refused(() => checkProjectName('foo-'), 400, `'foo-' is not a valid project name: ${RULE}`);
    refused(() => checkProjectName('foo\nbar'), 400, `'foo\\nbar' is not a valid project name: ${RULE}`);
    refused(() => checkProjectName(''), 400, `'' is not a valid project name: ${RULE}`);
    refused(() => checkProjectName('x'.repeat(201)), 400, `'${'x'.repeat(30)}...${'x'.repeat(30)}' (201 characters) is not a valid project name: ${RULE}`);
  });

  test('normalizing never turns an invalid name into a valid one, nor the reverse', () => {
    for (const name of ['-a', 'a_', 'a b', 'a..b', 'A__B', 'ok']) {
      const valid = (n: string) => {
        try {
          checkProjectName(n);
          return true;
        } catch {
          return false;
        }
      };
      assert.equal(valid(normalizeName(name)), valid(name), name);
    }
  });
});

describe('checkVersionSegment and checkFilenameSegment', () => {
  test('count UTF-8 bytes, at most 255', () => {
    checkVersionSegment('1'.repeat(255));
    checkFilenameSegment(`${'é'.repeat(127)}x`); // 255 bytes
    refused(() => checkVersionSegment('1'.repeat(256)), 400, /^The version '1{30}\.\.\.1{30}' is too long \(256 bytes\): versions are at most 255 bytes\.$/);
    refused(() => checkFilenameSegment('é'.repeat(128)), 400, /is too long \(256 bytes\): file names are at most 255 bytes\.$/);
  });
});
