/** The LMDB store's invariants: one transaction per change, serials only grow, deleted names stay reserved. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { MetaStore, type PublishInput } from '../../src/store/meta-store.js';

let dir: string;
let store: MetaStore;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-meta-'));
  store = new MetaStore(dir);
});
after(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function input(filename: string, version: string, sha256 = 'a'.repeat(64)): PublishInput {
  return {
    project: { name: 'demo', displayName: 'Demo' },
    release: { version, metadata: { name: 'Demo', version } },
    user: 'alice',
    file: {
      project: 'demo', version, filename, packagetype: 'bdist_wheel', pyversion: 'py3', size: 10, sha256, md5: 'b'.repeat(32),
      blake2b_256: sha256, uploadTime: new Date().toISOString(), requiresPython: null, comment: null, metadataSha256: null,
      signatureSha256: null, uploader: 'alice',
    },
  };
}

test('a publish writes project, release, file, serial and changelog together', () => {
  const result = store.publishFile(input('demo-1.0-py3-none-any.whl', '1.0'));
  assert.equal(result.outcome, 'created');
  const serial = (result as { serial: number }).serial;
  assert.equal(store.lastSerial(), serial);
  assert.equal(store.getProject('demo')!.serial, serial);
  assert.deepEqual(store.getProject('demo')!.owners, ['alice']);
  assert.equal(store.getRelease('demo', '1.0')!.version, '1.0');
  assert.equal(store.getFile('demo', 'demo-1.0-py3-none-any.whl')!.sha256, 'a'.repeat(64));
  const log = store.changesSince(0);
  assert.deepEqual(log.map((e) => e.action), ['create project', 'add file']);
  assert.equal(log.at(-1)!.serial, serial);
});

test('identical re-publish changes nothing; other bytes conflict', () => {
  const serial = store.lastSerial();
  assert.equal(store.publishFile(input('demo-1.0-py3-none-any.whl', '1.0')).outcome, 'identical');
  assert.equal(store.lastSerial(), serial);
  assert.equal(store.publishFile(input('demo-1.0-py3-none-any.whl', '1.0', 'c'.repeat(64))).outcome, 'conflict');
  assert.equal(store.lastSerial(), serial);
});

test('serials only grow across every kind of change, and removed filenames stay reserved', () => {
  const seen = [store.lastSerial()];
  store.publishFile(input('demo-2.0-py3-none-any.whl', '2.0', 'd'.repeat(64)));
  seen.push(store.lastSerial());
  store.setYanked('demo', '2.0', true, 'bad', 'alice');
  seen.push(store.lastSerial());
  store.setYanked('demo', '2.0', false, null, 'alice');
  seen.push(store.lastSerial());
  const removed = store.remove('demo', '2.0', 'demo-2.0-py3-none-any.whl', 'alice');
  assert.equal(removed!.length, 1);
  seen.push(store.lastSerial());
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!, `serial ${seen[i]} after ${seen[i - 1]}`);
  assert.equal(store.publishFile(input('demo-2.0-py3-none-any.whl', '2.0', 'd'.repeat(64))).outcome, 'reused-filename');
  assert.equal(store.getProject('demo')!.serial, store.lastSerial());
});

test('removing a project removes its releases and files but keeps the serial counter', () => {
  const before = store.lastSerial();
  const removed = store.remove('demo', null, null, 'alice');
  assert.ok(removed && removed.length >= 1);
  assert.equal(store.getProject('demo'), undefined);
  assert.equal(store.getReleases('demo').length, 0);
  assert.equal(store.getFiles('demo').length, 0);
  assert.ok(store.lastSerial() > before);
});

test('prefix ranges do not leak into projects whose names extend another', () => {
  store.publishFile({ ...input('foo-1.0-py3-none-any.whl', '1.0'), project: { name: 'foo', displayName: 'foo' }, file: { ...input('foo-1.0-py3-none-any.whl', '1.0').file, project: 'foo' } });
  store.publishFile({ ...input('foo_bar-1.0-py3-none-any.whl', '1.0'), project: { name: 'foo-bar', displayName: 'foo-bar' }, file: { ...input('foo_bar-1.0-py3-none-any.whl', '1.0').file, project: 'foo-bar' } });
  assert.deepEqual(store.getFiles('foo').map((f) => f.filename), ['foo-1.0-py3-none-any.whl']);
  assert.deepEqual(store.getReleases('foo').map((r) => r.project), ['foo']);
});
