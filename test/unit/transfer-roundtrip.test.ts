/**
 * `larder export` and `larder import` through the storage interfaces only: every record kind written into
 * one storage comes back the same from another, empty one (serials and the changelog are the target's own).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import { openStorage } from '../../src/store/local/open-storage.js';
import type { FileRecord, ProjectRecord } from '../../src/store/records.js';
import type { Storage } from '../../src/store/storage.js';
import { exportArchive } from '../../src/transfer/export.js';
import { importArchive, type ImportSummary } from '../../src/transfer/import.js';
import { RECORD_KINDS, storedRecords } from '../helpers/stored-records.js';
import { publishInput, type StorageFactory } from '../helpers/storage-fixtures.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Fills `storage` with at least one record of every kind, through its interfaces. */
async function fill(storage: Storage): Promise<void> {
  const { index, documents, cachedFiles, blobs } = storage;
  const blob = async (content: string) => {
    await blobs.writeBuffer(Buffer.from(content), sha(content));
    return sha(content);
  };
  const wheel = publishInput('demo-1.0-py3-none-any.whl', '1.0', await blob('wheel'));
  const file: FileRecord = { ...wheel.file, metadataSha256: await blob('metadata'), signatureSha256: await blob('signature') };
  await index.publishFile({ ...wheel, file });
  await index.publishFile(publishInput('demo-0.9-py3-none-any.whl', '0.9', await blob('old wheel')));
  await index.remove('demo', '0.9', 'demo-0.9-py3-none-any.whl', 'alice');
  await index.setYanked('demo', '1.0', true, 'broken build', 'alice');
  await index.putUser({ name: 'alice', passwordHash: 'hash-a', admin: false, createdAt: '2024-01-01T00:00:00.000Z' });
  await index.putUser({ name: 'bob', passwordHash: 'hash-b', admin: false, createdAt: '2024-01-01T00:00:00.000Z' });
  await index.addMaintainer('demo', 'bob', 'alice');
  await index.setProjectStatus('demo', 'deprecated', 'use demo2', 'alice');
  await index.putToken({
    id: 'f'.repeat(12),
    hash: 'f'.repeat(64),
    user: 'alice',
    projects: ['demo'],
    description: 'ci',
    createdAt: '2024-01-01T00:00:00.000Z',
    expiresAt: '2099-01-01T00:00:00.000Z',
  });
  await index.allowName('some-allowed', 'root');
  const validators = { etag: '"v1"', lastModified: 'Mon, 01 Jan 2024 00:00:00 GMT' };
  await documents.put({ kind: 'page', project: 'up-lib' }, { value: { name: 'up-lib', files: [] }, fetchedAt: 10, validators });
  await documents.put({ kind: 'page', project: 'missing' }, { value: null, fetchedAt: 11, validators: {} });
  await documents.put({ kind: 'releases', project: 'up-lib' }, { value: { name: 'up-lib', releases: [] }, fetchedAt: 12, validators });
  await documents.put({ kind: 'release', project: 'up-lib', version: '1.0' }, { value: { summary: 'the first' }, fetchedAt: 13, validators });
  await documents.putRootList({ fetchedAt: 1, validators: {}, serial: 5, count: 1 });
  const upstreamWheel = await blob('upstream wheel');
  await cachedFiles.put(
    { project: 'up-lib', filename: 'up_lib-1.0-py3-none-any.whl', variant: 'file' },
    { sha256: upstreamWheel, size: 14, fetchedAt: 20, lastAccess: 30 },
  );
  await cachedFiles.put(
    { project: 'up-lib', filename: 'up_lib-1.0-py3-none-any.whl', variant: 'metadata' },
    { sha256: await blob('up metadata'), size: 11, fetchedAt: 20, lastAccess: 20 },
  );
}

function roundTrip(name: string, open: StorageFactory): void {
  describe(`${name}: every record kind round-trips through export and import`, async () => {
    let source: Storage;
    let target: Storage;
    let summary: ImportSummary;
    after(async () => {
      await source?.close();
      await target?.close();
    });
    const dir = suiteTempDir('larder-roundtrip-unit-');

    before(async () => {
      source = await open(join(dir, 'source'));
      target = await open(join(dir, 'target'));
      await source.blobs.init();
      await target.blobs.init();
      await fill(source);
      const file = join(dir, 'all.tar');
      await exportArchive({ storage: source, file, options: { private: true, cache: true, projects: null, includeUsers: true } });
      summary = await importArchive({ storage: target, file, trust: { users: true, admins: true } });
    });

    for (const kind of RECORD_KINDS.filter((k) => k !== 'projects' && k !== 'changelog')) {
      test(`${kind}: the same records`, async () => {
        const here = await storedRecords(source, kind);
        assert.ok(here.size > 0, `the source has ${kind} records`);
        assert.deepEqual(await storedRecords(target, kind), here);
      });
    }

    test('projects: the same, with roles, under serials of the target', async () => {
      const here = await storedRecords(source, 'projects');
      const there = await storedRecords(target, 'projects');
      assert.deepEqual([...there.keys()], [...here.keys()]);
      const { serial: _a, ...want } = here.get('"demo"') as ProjectRecord;
      const { serial, ...got } = there.get('"demo"') as ProjectRecord;
      assert.deepEqual(got, want);
      assert.deepEqual(got.maintainers, ['bob']);
      assert.deepEqual([got.status, got.statusReason], ['deprecated', 'use demo2'], 'the PEP 792 status travels with the project');
      assert.equal(serial, await target.index.lastSerial());
    });

    test('serial and changelog: each added project and file took a new local serial', async () => {
      assert.deepEqual(
        (await target.index.changesSince(0)).map((c) => [c.serial, c.action, c.filename]),
        [
          [1, 'create project', null],
          [2, 'add file', 'demo-1.0-py3-none-any.whl'],
        ],
      );
      assert.equal((await target.index.getRelease('demo', '1.0'))!.yankedReason, 'broken build');
      assert.equal(await target.index.isFilenameDeleted('demo', 'demo-0.9-py3-none-any.whl'), true);
    });

    test('blobs: every referenced blob, and only those', async () => {
      const listed = new Map<string, string>();
      for await (const { sha256 } of target.blobs.list()) listed.set(sha256, await text(await target.blobs.read(sha256)));
      assert.deepEqual(
        [...listed.values()].sort(),
        ['metadata', 'signature', 'up metadata', 'upstream wheel', 'wheel'],
        'the removed file’s blob is not exported',
      );
      for (const [digest, content] of listed) assert.equal(sha(content), digest);
    });

    test('the project list state is not exported; a second import adds nothing', async () => {
      assert.equal(target.documents.getRootList(), undefined);
      assert.deepEqual([summary.filesAdded, summary.cacheDocsAdded, summary.cacheFilesAdded, summary.tokensAdded], [1, 4, 2, 1]);
      const again = await importArchive({ storage: target, file: join(dir, 'all.tar'), trust: { users: true, admins: true } });
      assert.equal(again.newRecords, 0);
    });
  });
}

roundTrip('LMDB + filesystem', openStorage);
