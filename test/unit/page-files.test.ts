// docs/security.md "Limits on untrusted content": finding a file of a page is a lookup, not a scan per request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FileEntry, ProjectPage } from '../../src/model/documents.js';
import { groupBy, PageFiles } from '../../src/model/page-files.js';
import { fileEntry } from '../helpers/model-builders.js';

const entry = (filename: string, version: string): FileEntry => fileEntry(filename, { version });

function page(files: FileEntry[]): ProjectPage {
  return { name: 'big', displayName: 'big', serial: 1, files, versions: [], origin: 'upstream' } as unknown as ProjectPage;
}

test('a page is indexed once: later lookups do not read the file list again', () => {
  const files = Array.from({ length: 1000 }, (_, i) => entry(`big-${i}.tar.gz`, String(i)));
  let reads = 0;
  const counted = new Proxy(files, {
    get(target, key, receiver) {
      if (key === Symbol.iterator) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  const p = page(counted);
  const pageFiles = new PageFiles();
  for (let i = 0; i < 1000; i++) assert.equal(pageFiles.find(p, `big-${i}.tar.gz`)?.version, String(i));
  assert.equal(pageFiles.find(p, 'absent.tar.gz'), undefined);
  assert.equal(reads, 1);
});

test('of two entries with one filename the first is found, as a scan finds it', () => {
  const p = page([entry('x-1.tar.gz', 'first'), entry('x-1.tar.gz', 'second')]);
  assert.equal(new PageFiles().find(p, 'x-1.tar.gz')?.version, 'first');
});

test('groupBy keeps input order within each group', () => {
  const groups = groupBy(['a1', 'b1', 'a2', 'b2', 'c1'], (s) => s[0]);
  assert.deepEqual(
    [...groups.entries()],
    [
      ['a', ['a1', 'a2']],
      ['b', ['b1', 'b2']],
      ['c', ['c1']],
    ],
  );
});
