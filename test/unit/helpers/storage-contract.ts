/**
 * What every storage backend must do, as test cases over the storage interfaces only: run them with a
 * factory that opens a backend for a fresh data directory (store-lmdb.test.ts does it for LMDB + files).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import type { PublishInput } from '../../../src/store/index-store.js';
import type { CachedDocument, FileRecord } from '../../../src/store/records.js';
import type { Storage } from '../../../src/store/storage.js';
import type { CachedDocumentId } from '../../../src/store/upstream-document-store.js';

export type StorageFactory = (dataDir: string) => Storage | Promise<Storage>;

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

export function fileRecord(project: string, version: string, filename: string, sha256 = 'a'.repeat(64)): FileRecord {
  return {
    project, version, filename, packagetype: 'bdist_wheel', pyversion: 'py3', size: 10, sha256, md5: 'b'.repeat(32),
    blake2b_256: sha256, uploadTime: new Date().toISOString(), requiresPython: null, comment: null, metadataSha256: null,
    signatureSha256: null, uploader: 'alice',
  };
}

export function publishInput(filename: string, version: string, sha256 = 'a'.repeat(64), project = 'demo'): PublishInput {
  return {
    project: { name: project, displayName: project === 'demo' ? 'Demo' : project },
    release: { version, metadata: { name: project, version } },
    user: 'alice',
    file: fileRecord(project, version, filename, sha256),
  };
}

/** A fresh storage per describe block, closed and removed after it. */
function withStorage(open: StorageFactory): () => Storage {
  let dir: string;
  let storage: Storage;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-store-'));
    storage = await open(join(dir, 'data'));
    await storage.blobs.init();
  });
  after(async () => {
    await storage?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return () => storage;
}

export function storageContract(name: string, open: StorageFactory): void {
  describe(`${name}: index store`, () => {
    const storage = withStorage(open);

    test('a publish writes project, release, file, serial and changelog together', () => {
      const store = storage().index;
      const result = store.publishFile(publishInput('demo-1.0-py3-none-any.whl', '1.0'));
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
      const store = storage().index;
      const serial = store.lastSerial();
      assert.equal(store.publishFile(publishInput('demo-1.0-py3-none-any.whl', '1.0')).outcome, 'identical');
      assert.equal(store.lastSerial(), serial);
      assert.equal(store.publishFile(publishInput('demo-1.0-py3-none-any.whl', '1.0', 'c'.repeat(64))).outcome, 'conflict');
      assert.equal(store.lastSerial(), serial);
    });

    test('serials only grow across every kind of change, and removed filenames stay reserved', () => {
      const store = storage().index;
      const seen = [store.lastSerial()];
      store.publishFile(publishInput('demo-2.0-py3-none-any.whl', '2.0', 'd'.repeat(64)));
      seen.push(store.lastSerial());
      assert.ok(store.setYanked('demo', '2.0', true, 'bad', 'alice'));
      assert.deepEqual([store.getRelease('demo', '2.0')!.yanked, store.getRelease('demo', '2.0')!.yankedReason], [true, 'bad']);
      seen.push(store.lastSerial());
      store.setYanked('demo', '2.0', false, null, 'alice');
      seen.push(store.lastSerial());
      assert.equal(store.setYanked('demo', '9.9', true, null, 'alice'), null);
      const removed = store.remove('demo', '2.0', 'demo-2.0-py3-none-any.whl', 'alice');
      assert.equal(removed!.length, 1);
      seen.push(store.lastSerial());
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!, `serial ${seen[i]} after ${seen[i - 1]}`);
      assert.equal(store.isFilenameDeleted('demo', 'demo-2.0-py3-none-any.whl'), true);
      assert.equal(store.publishFile(publishInput('demo-2.0-py3-none-any.whl', '2.0', 'd'.repeat(64))).outcome, 'reused-filename');
      assert.equal(store.getProject('demo')!.serial, store.lastSerial());
    });

    test('prefix ranges do not leak into projects whose names extend another', () => {
      const store = storage().index;
      store.publishFile(publishInput('foo-1.0-py3-none-any.whl', '1.0', 'a'.repeat(64), 'foo'));
      store.publishFile(publishInput('foo_bar-1.0-py3-none-any.whl', '1.0', 'a'.repeat(64), 'foo-bar'));
      assert.deepEqual(store.getFiles('foo').map((f) => f.filename), ['foo-1.0-py3-none-any.whl']);
      assert.deepEqual(store.getReleases('foo').map((r) => r.project), ['foo']);
      assert.deepEqual([...store.listProjects()].map((p) => p.name).sort(), ['demo', 'foo', 'foo-bar']);
      assert.equal(store.projectCount(), 3);
      assert.equal([...store.allFiles()].length, 3);
    });

    test('maintainers, users, tokens and allowed names; removing a user takes their tokens and roles', () => {
      const store = storage().index;
      const at = new Date().toISOString();
      store.putUser({ name: 'bob', passwordHash: 'h', admin: false, createdAt: at });
      assert.equal(store.addMaintainer('demo', 'bob', 'alice'), true);
      assert.equal(store.addMaintainer('nope', 'bob', 'alice'), false);
      assert.deepEqual(store.getProject('demo')!.maintainers, ['bob']);
      store.putToken({ id: 'abc', hash: 'f'.repeat(64), user: 'bob', projects: null, description: null, createdAt: at });
      assert.equal(store.getTokenByHash('f'.repeat(64))!.user, 'bob');
      assert.deepEqual(store.listTokens('bob').map((t) => t.id), ['abc']);
      assert.deepEqual(store.listTokens('alice'), []);
      assert.equal(store.removeToken('nope'), false);
      store.allowName('some-name', 'root');
      assert.equal(store.isNameAllowed('some-name'), true);
      assert.equal(store.isNameAllowed('other-name'), false);
      assert.equal(store.removeUser('bob'), true);
      assert.equal(store.getUser('bob'), undefined);
      assert.deepEqual(store.listTokens(), []);
      assert.deepEqual(store.getProject('demo')!.maintainers, []);
      assert.equal(store.removeUser('bob'), false);
    });

    test('a read snapshot holds every record kind', () => {
      const store = storage().index;
      const counts = store.readSnapshot((view) => ({
        projects: [...view.projects()].length,
        releases: [...view.releases()].length,
        files: [...view.files()].length,
        deleted: [...view.deletedFilenames()],
        allowed: [...view.allowedNames()].map((a) => [a.name, a.by]),
        changes: [...view.changelog()].length,
      }));
      assert.deepEqual(
        { ...counts, deleted: counts.deleted.map((d) => [d.project, d.filename]) },
        {
          projects: 3,
          releases: 4,
          files: 3,
          deleted: [['demo', 'demo-2.0-py3-none-any.whl']],
          allowed: [['some-name', 'root']],
          changes: store.changesSince(0).length,
        },
      );
    });

    test('an import is one transaction: its changes take new serials, and a failure keeps none', () => {
      const store = storage().index;
      const before = store.lastSerial();
      assert.throws(() =>
        store.importRecords((target) => {
          target.addProject({ name: 'half', displayName: 'Half', createdAt: '', serial: 99, owners: [], maintainers: [] });
          throw new Error('stop');
        }),
      );
      assert.equal(store.getProject('half'), undefined);
      assert.equal(store.lastSerial(), before);
      store.importRecords((target) => {
        target.addProject({ name: 'whole', displayName: 'Whole', createdAt: '', serial: 99, owners: ['alice'], maintainers: [] });
        target.addRelease({ project: 'whole', version: '1.0', metadata: {}, createdAt: '', yanked: true, yankedReason: 'r' });
        assert.ok(target.getProject('whole'), 'reads inside see the writes so far');
        target.addFile(fileRecord('whole', '1.0', 'whole-1.0.tar.gz'));
        target.reserveFilename({ project: 'whole', filename: 'whole-0.1.tar.gz', deletedAt: '2024-01-01T00:00:00.000Z' });
      });
      assert.equal(store.getProject('whole')!.serial, before + 2);
      assert.equal(store.getRelease('whole', '1.0')!.yankedReason, 'r');
      assert.deepEqual(store.changesSince(before).map((c) => c.action), ['create project', 'add file']);
      assert.equal(store.isFilenameDeleted('whole', 'whole-0.1.tar.gz'), true);
    });

    test('removing a project removes its releases and files but keeps the serial counter', () => {
      const store = storage().index;
      const before = store.lastSerial();
      const removed = store.remove('demo', null, null, 'alice');
      assert.ok(removed && removed.length >= 1);
      assert.equal(store.getProject('demo'), undefined);
      assert.equal(store.getReleases('demo').length, 0);
      assert.equal(store.getFiles('demo').length, 0);
      assert.ok(store.lastSerial() > before);
      assert.equal(store.remove('demo', null, null, 'alice'), null);
    });
  });

  describe(`${name}: upstream document store`, () => {
    const storage = withStorage(open);
    const entry = (value: unknown, fetchedAt = 1): CachedDocument<unknown> => ({ value, fetchedAt, validators: { etag: `"${fetchedAt}"` } });
    const ids: CachedDocumentId[] = [
      { kind: 'page', project: 'foo' },
      { kind: 'page', project: 'foo-bar' },
      { kind: 'releases', project: 'foo' },
      { kind: 'release', project: 'foo', version: '1.0' },
      { kind: 'release', project: 'foo', version: '1.0.post1' },
    ];

    test('each kind of document is kept apart, with its validators; 404s are entries too', async () => {
      const docs = storage().documents;
      await Promise.all(ids.map((id, i) => docs.put(id, entry({ i }, i + 1))));
      await docs.put({ kind: 'page', project: 'gone' }, entry(null));
      ids.forEach((id, i) => assert.deepEqual(docs.get(id), entry({ i }, i + 1), JSON.stringify(id)));
      assert.equal(docs.get({ kind: 'releases', project: 'foo-bar' }), undefined);
      assert.equal(docs.get({ kind: 'release', project: 'foo', version: '2.0' }), undefined);
      assert.deepEqual(docs.get({ kind: 'page', project: 'gone' })!.value, null);
    });

    test('pages and their count are the project pages only; entries are every document but the root list', async () => {
      const docs = storage().documents;
      await docs.putRootList({ fetchedAt: 5, validators: {}, serial: 7, count: 2 });
      assert.deepEqual([...docs.pages()].map((p) => p.project).sort(), ['foo', 'foo-bar', 'gone']);
      assert.equal(docs.pageCount(), 3);
      const all = [...docs.entries()].map((e) => JSON.stringify(e.id)).sort();
      assert.deepEqual(all, [...ids, { kind: 'page', project: 'gone' }].map((id) => JSON.stringify(id)).sort());
    });

    test('the root list state; deleting documents', async () => {
      const docs = storage().documents;
      assert.deepEqual(docs.getRootList(), { fetchedAt: 5, validators: {}, serial: 7, count: 2 });
      await docs.deleteRootList();
      assert.equal(docs.getRootList(), undefined);
      await docs.delete({ kind: 'release', project: 'foo', version: '1.0' });
      assert.equal(docs.get({ kind: 'release', project: 'foo', version: '1.0' }), undefined);
      assert.ok(docs.get({ kind: 'release', project: 'foo', version: '1.0.post1' }));
      assert.equal(docs.pageCount(), 3);
    });
  });

  describe(`${name}: cached-file index`, () => {
    const storage = withStorage(open);
    const record = (sha256: string, size: number) => ({ sha256, size, fetchedAt: 1, lastAccess: 1 });
    const wheel = { project: 'foo', filename: 'foo-1.0-py3-none-any.whl', variant: 'file' };
    const metadata = { ...wheel, variant: 'metadata' };

    test('records per file and variant; touch moves the last access; totals', async () => {
      const files = storage().cachedFiles;
      await files.put(wheel, record('a'.repeat(64), 100));
      await files.put(metadata, record('b'.repeat(64), 5));
      assert.deepEqual(files.get(wheel), record('a'.repeat(64), 100));
      assert.equal(files.get({ ...wheel, variant: 'signature' }), undefined);
      await files.touch(wheel, files.get(wheel)!, 50);
      assert.equal(files.get(wheel)!.lastAccess, 50);
      assert.deepEqual(files.totals(), { bytes: 105, files: 2 });
      assert.deepEqual([...files.entries()].map((e) => e.id.variant).sort(), ['file', 'metadata']);
      await files.delete(wheel);
      assert.equal(files.get(wheel), undefined);
      assert.deepEqual(files.totals(), { bytes: 5, files: 1 });
    });
  });

  describe(`${name}: blob store`, () => {
    const storage = withStorage(open);

    test('a committed blob is there whole; a second commit of the same bytes keeps one', async () => {
      const blobs = storage().blobs;
      const bytes = 'some file content';
      assert.equal(await blobs.has(sha(bytes)), false);
      await blobs.writeBuffer(Buffer.from(bytes), sha(bytes));
      const tmp = blobs.tmpPath('test');
      await writeFile(tmp, bytes);
      await blobs.commit(tmp, sha(bytes));
      assert.equal(await blobs.has(sha(bytes)), true);
      assert.equal(blobs.hasSync(sha(bytes)), true);
      assert.equal(await blobs.size(sha(bytes)), bytes.length);
      assert.equal(await text(blobs.read(sha(bytes))), bytes);
      assert.equal(await text(blobs.read(sha(bytes), { start: 5, end: 8 })), 'file');
      const listed = [];
      for await (const blob of blobs.list()) listed.push(blob);
      assert.deepEqual(listed, [{ sha256: sha(bytes), size: bytes.length }]);
      assert.equal(typeof (await blobs.modifiedAt(sha(bytes))), 'number');
      await blobs.remove(sha(bytes));
      assert.equal(await blobs.has(sha(bytes)), false);
      assert.equal(await blobs.size(sha(bytes)), null);
      assert.equal(await blobs.modifiedAt(sha(bytes)), null);
    });

    test('purging temporary files: all of them, or those older than a time', async () => {
      const blobs = storage().blobs;
      const old = blobs.tmpPath('old');
      const young = blobs.tmpPath('young');
      await writeFile(old, 'x');
      await writeFile(young, 'y');
      await utimes(old, new Date(1000), new Date(1000));
      assert.equal(await blobs.purgeTmp(2000), 1);
      assert.equal(await blobs.purgeTmp(), 1);
      assert.equal(await blobs.purgeTmp(), 0);
    });
  });
}
