/**
 * A refused upload leaves nothing behind: every refusal (permission, a name that exists upstream, the same
 * file name with other bytes, a file name once deleted, a wheel whose METADATA contradicts its filename, a
 * broken archive) is decided before a blob is committed; concurrent uploads to one project are serialized;
 * and when the final store transaction still refuses, the blobs this upload added and nothing references
 * are taken back, while shared ones stay.
 */
import { systemClock } from '../../src/base/clock.js';
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Identity } from '../../src/auth/authenticator.js';
import { LarderError } from '../../src/base/errors.js';
import type { BlobStore } from '../../src/store/blob-store.js';
import type { IndexStore, PublishInput, PublishResult } from '../../src/store/index-store.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import type { Storage } from '../../src/store/storage.js';
import { Publisher } from '../../src/upload/publish.js';
import { validateUpload } from '../../src/upload/validate.js';
import { buildSdist, buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { digestBuffer, sha256Hex } from '../fixtures/hashes.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { uploadForm } from '../helpers/upload-form.js';

/** Every blob file under `<data>/blobs/sha256/`. */
function blobFiles(data: string): string[] {
  const root = join(data, 'blobs', 'sha256');
  const found: string[] = [];
  for (const a of readdirSync(root)) for (const b of readdirSync(join(root, a))) for (const n of readdirSync(join(root, a, b))) found.push(n);
  return found.sort();
}

/** A wheel named for `name` and `version` whose METADATA is `metadata` instead. */
const wheelWithMetadata = (dir: string, name: string, version: string, metadata: string) => buildWheel(dir, { name, version, metadataOverride: metadata });

describe('refused uploads leave no blob', () => {
  let dir: string;
  let up: FakeUpstream;
  let server: TestLarder;
  const alice = basicAuth('alice', 'alice-password');
  const bob = basicAuth('bob', 'bob-password');

  const upload = async (dist: BuiltDist, auth = alice, extra: Record<string, string> = {}, signature?: Buffer) => {
    const form = await uploadForm(dist, extra);
    if (signature) form.append('gpg_signature', new Blob([signature]), `${dist.filename}.asc`);
    return fetch(`${server.url}/legacy/`, { method: 'POST', body: form, headers: { Authorization: auth } });
  };

  /** Runs a refused upload and checks that it added no blob and left nothing in tmp/. */
  const refusedCleanly = async (send: () => Promise<Response>, status: number, reason: RegExp) => {
    const before = blobFiles(server.data);
    const res = await send();
    const body = await res.text();
    assert.equal(res.status, status, `${res.status} ${body}`);
    assert.match(res.statusText, reason);
    assert.deepEqual(blobFiles(server.data), before, 'no new blob');
    assert.deepEqual(await readdir(join(server.data, 'tmp')), [], 'tmp/ is empty');
  };

  /** A distribution file of the right name whose bytes are not an archive. */
  const garbage = async (like: BuiltDist): Promise<BuiltDist> => {
    const bytes = Buffer.from(`not an archive at all ${like.filename}\n`.repeat(20));
    await mkdir(join(dir, 'garbage'), { recursive: true });
    const path = join(dir, 'garbage', like.filename);
    await writeFile(path, bytes);
    return { ...like, ...(await digestBuffer(bytes)), path };
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-refusals-'));
    up = await startFakeUpstream();
    up.addProject('taken-upstream', [await buildWheel(join(dir, 'up'), { name: 'taken-upstream', version: '0.1' })]);
    server = await startLarder({ upstream: up.url, upstreamRetries: 0 });
    await server.addUser('alice', 'alice-password');
    await server.addUser('bob', 'bob-password');
    const first = await upload(await buildWheel(join(dir, 'a'), { name: 'acme-ref', version: '1.0' }));
    assert.equal(first.status, 200, first.statusText);
  });
  after(async () => {
    await server?.close();
    await up?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('no permission: 403, no blob', async () => {
    const wheel = await buildWheel(join(dir, 'b'), { name: 'acme-ref', version: '1.1' });
    await refusedCleanly(() => upload(wheel, bob, {}, Buffer.from('bob signs')), 403, /^The user 'bob' isn't allowed to upload to project 'acme-ref'\.$/);
  });

  test('a new name that exists upstream: 409, no blob', async () => {
    const wheel = await buildWheel(join(dir, 'c'), { name: 'Taken.Upstream', version: '1.0' });
    await refusedCleanly(() => upload(wheel), 409, /^The name 'Taken\.Upstream' conflicts with an existing project on the upstream index\./);
  });

  test('the same file name with other bytes: 409, no blob', async () => {
    const other = await buildWheel(join(dir, 'd'), { name: 'acme-ref', version: '1.0', modules: { 'acme_ref/__init__.py': 'OTHER = 1\n' } });
    await refusedCleanly(() => upload(other, alice, {}, Buffer.from('a new signature')), 409, /^File already exists \('acme_ref-1\.0-py3-none-any\.whl'/);
  });

  test('a file name once deleted: 400, no blob (file and signature)', async () => {
    const wheel = await buildWheel(join(dir, 'e'), { name: 'acme-ref', version: '2.0' });
    assert.equal((await upload(wheel, alice, {}, Buffer.from('signature one'))).status, 200);
    const removed = await fetch(`${server.url}/api/projects/acme-ref/releases/2.0/files/${wheel.filename}`, {
      method: 'DELETE',
      headers: { Authorization: alice },
    });
    assert.equal(removed.status, 200, await removed.text());
    const again = await buildWheel(join(dir, 'e2'), { name: 'acme-ref', version: '2.0', modules: { 'acme_ref/__init__.py': 'AGAIN = 1\n' } });
    await refusedCleanly(() => upload(again, alice, {}, Buffer.from('signature two')), 400, /previously used by a file that has since been deleted/);
  });

  test('wheel METADATA whose Name or Version contradicts the filename: 400 naming both values, no blob', async () => {
    const wrongName = await wheelWithMetadata(join(dir, 'f1'), 'acme-ref', '3.0', 'Metadata-Version: 2.1\nName: other-project\nVersion: 3.0\n\n');
    await refusedCleanly(
      () => upload(wrongName),
      400,
      /^Name 'other-project' in the wheel's METADATA does not match the project 'acme-ref' of the filename and the form\.$/,
    );
    const wrongVersion = await wheelWithMetadata(join(dir, 'f2'), 'acme-ref', '3.0', 'Metadata-Version: 2.1\nName: acme-ref\nVersion: 3.0.1\n\n');
    await refusedCleanly(
      () => upload(wrongVersion),
      400,
      /^Version '3\.0\.1' in the wheel's METADATA does not match the version '3\.0' of the filename and the form\.$/,
    );
    const noName = await wheelWithMetadata(join(dir, 'f3'), 'acme-ref', '3.0', 'Metadata-Version: 2.1\nVersion: 3.0\n\n');
    await refusedCleanly(() => upload(noName), 400, /^The wheel's METADATA has no Name field\.$/);
    // Spelling and version normalization are no contradiction.
    const equivalent = await wheelWithMetadata(join(dir, 'f4'), 'acme-ref', '3.0', 'Metadata-Version: 2.1\r\nName: ACME.Ref\r\nVersion: 3.00\r\n\r\n');
    const ok = await upload(equivalent);
    assert.equal(ok.status, 200, ok.statusText);
    const served = await fetch(`${server.url}/packages/acme-ref/${equivalent.filename}.metadata`);
    assert.equal(sha256Hex(Buffer.from(await served.arrayBuffer())), equivalent.metadataSha256);
  });

  test('a broken archive: 400, no blob', async () => {
    const wheel = await garbage(await buildWheel(join(dir, 'g'), { name: 'acme-ref', version: '4.0' }));
    await refusedCleanly(() => upload(wheel, alice, {}, Buffer.from('sig')), 400, /^Invalid distribution file\. File is not a zipfile$/);
    const sdist = await garbage(await buildSdist(join(dir, 'g'), { name: 'acme-ref', version: '4.0' }));
    await refusedCleanly(() => upload(sdist), 400, /^Invalid distribution file\. File is not a tarfile$/);
  });

  test('concurrent uploads of one file name with other bytes: one wins, the other gets 409 and leaves no blob', async () => {
    for (let i = 0; i < 5; i++) {
      const version = `5.${i}`;
      const a = await buildWheel(join(dir, `race-a${i}`), { name: 'acme-ref', version, modules: { 'acme_ref/__init__.py': 'A = 1\n' } });
      const b = await buildWheel(join(dir, `race-b${i}`), { name: 'acme-ref', version, modules: { 'acme_ref/__init__.py': 'B = 1\n' } });
      const before = new Set(blobFiles(server.data));
      const [ra, rb] = await Promise.all([upload(a), upload(b)]);
      assert.deepEqual([ra.status, rb.status].sort(), [200, 409], `${version}: ${ra.statusText} / ${rb.statusText}`);
      const [winner, loser] = ra.status === 200 ? [a, b] : [b, a];
      const added = blobFiles(server.data).filter((s) => !before.has(s));
      assert.deepEqual(added.sort(), [winner.sha256, winner.metadataSha256].sort(), `${version}: only the winner's blobs`);
      assert.ok(!added.includes(loser.sha256));
      assert.deepEqual(await readdir(join(server.data, 'tmp')), []);
    }
  });
});

/** An index where another writer (another process) takes the file name between the checks and the transaction. */
type RacingIndex = IndexStore & { competitor: ((input: PublishInput) => Promise<void>) | null };

function racing(index: IndexStore): RacingIndex {
  const racer: RacingIndex = Object.create(index);
  racer.competitor = null;
  racer.publishFile = async (input: PublishInput): Promise<PublishResult> => {
    const competitor = racer.competitor;
    racer.competitor = null;
    await competitor?.(input);
    return index.publishFile(input);
  };
  return racer;
}

describe('publisher: when the final transaction still refuses', () => {
  let dir: string;
  let data: string;
  let storage: Storage;
  let meta: RacingIndex;
  let blobs: BlobStore;
  const alice: Identity = { user: 'alice', admin: false, tokenProjects: null, viaToken: false };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-publish-race-'));
    data = join(dir, 'data');
    storage = openStorage(data);
    meta = racing(storage.index);
    blobs = storage.blobs;
    await blobs.init();
  });
  after(async () => {
    await storage?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('the blobs it added and nothing references are removed; shared and older blobs stay', async () => {
    const ours = await buildWheel(join(dir, 'ours'), { name: 'acme-race', version: '1.0', modules: { 'acme_race/__init__.py': 'OURS = 1\n' } });
    const theirs = await buildWheel(join(dir, 'theirs'), { name: 'acme-race', version: '1.0', modules: { 'acme_race/__init__.py': 'THEIRS = 1\n' } });
    assert.equal(ours.metadataSha256, theirs.metadataSha256, 'the same METADATA: one shared .metadata blob');
    // The other writer's blobs are durable before its record (blob before record); a signature blob is already here.
    await blobs.writeBuffer(await readFile(theirs.path), theirs.sha256);
    const signature = Buffer.from('an older, identical signature');
    const signatureSha = sha256Hex(signature);
    await blobs.writeBuffer(signature, signatureSha);

    const contentPath = blobs.tmpPath('upload');
    await copyFile(ours.path, contentPath);
    const signaturePath = blobs.tmpPath('upload');
    await writeFile(signaturePath, signature);
    const upload = await validateUpload({
      fields: {
        ':action': ['file_upload'],
        metadata_version: ['2.1'],
        name: ['acme-race'],
        version: ['1.0'],
        filetype: ['bdist_wheel'],
        pyversion: ['py3'],
        sha256_digest: [ours.sha256],
      },
      content: {
        path: contentPath,
        filename: ours.filename,
        contentType: 'application/octet-stream',
        size: ours.size,
        md5: ours.md5,
        sha256: ours.sha256,
        blake2b_256: ours.blake2b_256,
      },
      signature: {
        path: signaturePath,
        filename: `${ours.filename}.asc`,
        contentType: 'application/octet-stream',
        ...(await digestBuffer(signature)),
        size: signature.length,
      },
      cleanup: async () => {},
    });

    meta.competitor = async (input) => {
      const result = await meta.publishFile({
        ...input,
        file: { ...input.file, sha256: theirs.sha256, md5: theirs.md5, blake2b_256: theirs.blake2b_256, size: theirs.size, signatureSha256: null },
      });
      assert.equal(result.outcome, 'created');
    };
    const publisher = new Publisher({ ...storage, index: meta }, null, new Set(), systemClock);
    await assert.rejects(publisher.publish(upload, alice), (err: unknown) => {
      assert.ok(err instanceof LarderError);
      assert.equal(err.status, 409);
      assert.match(err.message, /^File already exists/);
      return true;
    });

    assert.equal(existsSync(blobs.localPath(ours.sha256)!), false, 'our file blob, referenced by nothing, is gone');
    assert.equal(existsSync(blobs.localPath(ours.metadataSha256)!), true, 'the .metadata blob the other record references stays');
    assert.equal(existsSync(blobs.localPath(theirs.sha256)!), true, "the other writer's blob stays");
    assert.equal(existsSync(blobs.localPath(signatureSha)!), true, 'a blob that was here before this upload stays');
    assert.deepEqual(await readdir(blobs.tmpDir), []);
    assert.equal((await meta.getFile('acme-race', ours.filename))!.sha256, theirs.sha256);
  });
});
