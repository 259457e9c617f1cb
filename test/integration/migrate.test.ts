/**
 * `larder migrate` through the real CLI, from a filled data directory (uploads, a yank, a removed file,
 * users, tokens, an exemption, cached upstream files) into another local data directory (`file:` targets:
 * the same storage interfaces a PostgreSQL + S3 target implements). A larder started on the target serves
 * the same pages, bytes, yanks and tokens; a re-run adds nothing; a run stopped part-way is finished by the
 * next one; a source blob whose bytes changed is refused and the command fails.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { FileBlobStore } from '../../src/store/fs/file-blob-store.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import type { BlobStore } from '../../src/store/blob-store.js';
import { migrate } from '../../src/transfer/migrate.js';
import { buildSdist, buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { runLarderCli } from '../helpers/cli.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { uploadForm } from '../helpers/upload-form.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const JSON_ACCEPT = 'application/vnd.pypi.simple.v1+json';
const ALICE = basicAuth('alice', 'alice-password');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface PageFile {
  filename: string;
  url: string;
  hashes: Record<string, string>;
  yanked?: unknown;
  'requires-python'?: unknown;
  'core-metadata'?: unknown;
}

/** What a client sees of a private project: the simple page's files (without URLs), the serial, and every file's bytes. */
async function observe(url: string, project: string) {
  const res = await fetch(`${url}/simple/${project}/`, { headers: { Accept: JSON_ACCEPT } });
  assert.equal(res.status, 200, `${project}: ${res.status}`);
  const serial = Number(res.headers.get('x-pypi-last-serial'));
  const page = (await res.json()) as { files: PageFile[]; versions?: string[] };
  const bytes: Record<string, string> = {};
  for (const f of page.files) {
    const file = await fetch(new URL(f.url, `${url}/simple/${project}/`));
    assert.equal(file.status, 200, f.filename);
    bytes[f.filename] = sha256(Buffer.from(await file.arrayBuffer()));
  }
  const files = page.files.map(({ url: _url, ...rest }) => rest).sort((a, b) => a.filename.localeCompare(b.filename));
  return { serial, files, versions: page.versions, bytes };
}

describe('larder migrate', () => {
  const dir = suiteTempDir('larder-migrate-');
  let up: FakeUpstream;
  let source: TestLarder;
  let token: string;
  let oneWheel: BuiltDist;
  let oneSdist: BuiltDist;
  let removedWheel: BuiltDist;
  let upDep: BuiltDist;
  const seen: Record<string, Awaited<ReturnType<typeof observe>>> = {};
  const larders: TestLarder[] = [];

  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runLarderCli(args, { env: { LARDER_DATA: source.data, ...env } });
  const fileUrl = (path: string) => pathToFileURL(path).href;
  const output = (r: { code: number; stdout: string; stderr: string }) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;

  const upload = async (url: string, dist: BuiltDist, auth = ALICE) => {
    const res = await fetch(`${url}/legacy/`, { method: 'POST', body: await uploadForm(dist), headers: { Authorization: auth } });
    return { status: res.status, text: await res.text() };
  };

  before(async () => {
    upDep = await buildWheel(join(dir, 'up'), { name: 'up-dep', version: '1.0' });
    up = await startFakeUpstream();
    up.addProject('up-dep', [upDep]);
    source = await startLarder({ upstream: up.url, upstreamRetries: 0 });
    larders.push(source);
    await source.addUser('alice', 'alice-password');
    await source.addUser('bob', 'bob-password');
    token = await source.addToken('alice', ['acme-one']);
    oneWheel = await buildWheel(join(dir, 'src'), { name: 'Acme.One', version: '1.0' });
    oneSdist = await buildSdist(join(dir, 'src'), { name: 'Acme.One', version: '1.0' });
    removedWheel = await buildWheel(join(dir, 'src'), { name: 'acme-two', version: '1.0' });
    const twoWheel = await buildWheel(join(dir, 'src'), { name: 'acme-two', version: '2.0' });
    for (const d of [oneWheel, oneSdist, removedWheel, twoWheel]) assert.equal((await upload(source.url, d)).status, 200);
    const yank = await fetch(`${source.url}/api/projects/acme-one/releases/1.0/yank`, {
      method: 'POST',
      headers: { Authorization: ALICE, 'Content-Type': 'application/json' },
      body: JSON.stringify({ reason: 'broken build' }),
    });
    assert.equal(yank.status, 200);
    const removed = await fetch(`${source.url}/api/projects/acme-two/releases/1.0/files/${removedWheel.filename}`, {
      method: 'DELETE',
      headers: { Authorization: ALICE },
    });
    assert.equal(removed.status, 200, await removed.text());
    const maintainer = await fetch(`${source.url}/api/projects/acme-one/maintainers`, {
      method: 'POST',
      headers: { Authorization: ALICE, 'Content-Type': 'application/json' },
      body: JSON.stringify({ user: 'bob' }),
    });
    assert.equal(maintainer.status, 200, await maintainer.text());
    // A cached upstream file (and its .metadata).
    const page = (await (await fetch(`${source.url}/simple/up-dep/`, { headers: { Accept: JSON_ACCEPT } })).json()) as { files: PageFile[] };
    const fileUrl = new URL(page.files[0]!.url, `${source.url}/simple/up-dep/`);
    assert.equal(sha256(Buffer.from(await (await fetch(fileUrl)).arrayBuffer())), upDep.sha256);
    for (const p of ['acme-one', 'acme-two']) seen[p] = await observe(source.url, p);
    assert.equal(seen['acme-one']!.files.filter((f) => f.yanked === 'broken build').length, 2);
    await source.stop();
    const allowed = await cli(['policy', 'allow', 'up-dep==1.0', '--reason', 'hotfix'], { USER: 'ops' });
    assert.equal(allowed.code, 0, output(allowed));
  });

  after(async () => {
    for (const l of larders) await l.close();
    await up?.close();
  });

  test('moves everything: a larder on the target serves the same pages, bytes, yanks, tokens and reserved names', async () => {
    const target = join(dir, 'target');
    const run = await cli(['migrate', '--to', fileUrl(target), '--blobs', fileUrl(target), '--verify']);
    assert.equal(run.code, 0, output(run));
    assert.match(run.stdout, /blobs: copied 6 blobs/, 'every private file, .metadata and cached upstream file');
    assert.match(run.stdout, /records: added 2 projects, 3 releases, 3 files, 1 removed-name reservation, 0 allowed names, 2 users, 1 token, 1 exemption/);
    assert.match(run.stdout, /the target numbers its own changes/);
    assert.match(run.stdout, /upstream page caches are per node and not migrated/);
    assert.match(run.stdout, /check passed: 2 projects, 3 releases, 3 files, 1 removed name, 2 users, 1 token, 1 exemption, \d+ blobs .* sha256 verified/);

    const again = await cli(['migrate', '--to', fileUrl(target), '--blobs', fileUrl(target)]);
    assert.equal(again.code, 0, output(again));
    assert.match(again.stdout, /blobs: copied 0 blobs \(0 B\), \d+ already in the target/);
    assert.match(again.stdout, /records: added 0 projects, 0 releases, 0 files, 0 removed-name reservations, 0 allowed names, 0 users, 0 tokens, 0 exemptions/);
    assert.match(again.stdout, /nothing to add: the target already had everything/);

    const policy = await runLarderCli(['policy', 'list'], { env: { LARDER_DATA: target } });
    assert.match(policy.stdout, /up-dep==1\.0\s+ops\s+\S+\s+hotfix/);

    const moved = await startLarder({}, target);
    larders.push(moved);
    for (const p of ['acme-one', 'acme-two']) {
      const now = await observe(moved.url, p);
      assert.deepEqual(now.files, seen[p]!.files, `${p}: the same files, hashes and yanks`);
      assert.deepEqual(now.bytes, seen[p]!.bytes, `${p}: the same bytes`);
      assert.ok(now.serial >= seen[p]!.serial, `${p}: serial ${now.serial} never below ${seen[p]!.serial}`);
    }
    const upBlob = new FileBlobStore(target).localPath(upDep.sha256);
    assert.equal(sha256(await readFile(upBlob)), upDep.sha256, 'the cached upstream file is in the target blob store');
    const again2 = await upload(moved.url, removedWheel);
    assert.equal(again2.status, 400, `the removed name stays reserved: ${again2.text}`);
    const viaToken = await upload(moved.url, await buildWheel(join(dir, 'new'), { name: 'acme-one', version: '3.0' }), basicAuth('__token__', token));
    assert.equal(viaToken.status, 200, `the token works on the target: ${viaToken.text}`);
    const byBob = await upload(moved.url, await buildWheel(join(dir, 'new'), { name: 'acme-one', version: '4.0' }), basicAuth('bob', 'bob-password'));
    assert.equal(byBob.status, 200, `bob is still a maintainer: ${byBob.text}`);
    await moved.stop();
  });

  test('a run stopped part-way (one blob unreadable) migrates no records; the next run finishes and the check passes', async () => {
    const target = join(dir, 'target-interrupted');
    const blobs = new FileBlobStore(source.data);
    const path = blobs.localPath(oneSdist.sha256);
    await rename(path, `${path}.away`);
    await mkdir(path); // unreadable as a file, whoever runs the test
    let first: Awaited<ReturnType<typeof cli>>;
    try {
      first = await cli(['migrate', '--to', fileUrl(target), '--blobs', fileUrl(target)]);
    } finally {
      await rmdir(path);
      await rename(`${path}.away`, path);
    }
    assert.equal(first.code, 1, output(first));
    assert.match(first.stdout, new RegExp(`failed: blob ${oneSdist.sha256}`));
    assert.match(first.stdout, /blobs: copied 5 blobs .*1 blob refused or failed/);
    assert.match(first.stdout, /records: not migrated/);
    assert.match(first.stderr, /larder: migration incomplete/);
    const storage = openStorage(target);
    try {
      assert.equal(await storage.index.projectCount(), 0, 'no record before every blob is there');
    } finally {
      await storage.close();
    }
    const second = await cli(['migrate', '--to', fileUrl(target), '--blobs', fileUrl(target), '--verify']);
    assert.equal(second.code, 0, output(second));
    assert.match(second.stdout, /blobs: copied 1 blob \(.*\), 5 already in the target/);
    assert.match(second.stdout, /check passed/);
  });

  test('a stop after some blobs were committed (in-process) is finished by the next run', async () => {
    const targetDir = join(dir, 'target-crash');
    const real = new FileBlobStore(targetDir);
    let commits = 0;
    const crashing: BlobStore = Object.assign(Object.create(real) as BlobStore, {
      commit: async (tmp: string, sha: string) => {
        if (++commits > 2) throw new Error('the process died here');
        return real.commit(tmp, sha);
      },
    });
    const src = openStorage(source.data);
    const tgt = openStorage(targetDir);
    try {
      const lines: string[] = [];
      const first = await migrate(src, { index: tgt.index, policy: tgt.policy, blobs: crashing }, { report: (l) => lines.push(l) });
      assert.equal(first.ok, false);
      assert.match(lines.join('\n'), /blobs: copied 2 blobs/);
      const lines2: string[] = [];
      const second = await migrate(src, { index: tgt.index, policy: tgt.policy, blobs: real }, { report: (l) => lines2.push(l), verify: true });
      assert.equal(second.ok, true, lines2.join('\n'));
      assert.match(lines2.join('\n'), /blobs: copied 4 blobs .*, 2 already in the target/);
      assert.equal((await tgt.index.getRelease('acme-one', '1.0'))?.yankedReason, 'broken build');
      assert.equal(existsSync(join(targetDir, 'tmp')) ? (await import('node:fs')).readdirSync(join(targetDir, 'tmp')).length : 0, 0, 'no temporary file left');
    } finally {
      await src.close();
      await tgt.close();
    }
  });

  test('a source blob whose bytes changed on disk is refused and the command fails', async () => {
    const target = join(dir, 'target-corrupt');
    const path = new FileBlobStore(source.data).localPath(oneWheel.sha256);
    const good = await readFile(path);
    const bad = Buffer.from(good);
    bad.writeUInt8(bad.readUInt8(bad.length - 1) ^ 0xff, bad.length - 1);
    // A new file in its place: a target that hard-linked the good blob keeps it.
    await writeFile(`${path}.bad`, bad);
    await rename(path, `${path}.good`);
    await rename(`${path}.bad`, path);
    let run: Awaited<ReturnType<typeof cli>>;
    try {
      run = await cli(['migrate', '--to', fileUrl(target), '--blobs', fileUrl(target)]);
    } finally {
      await rename(`${path}.good`, path);
    }
    assert.equal(run.code, 1, output(run));
    assert.match(run.stdout, new RegExp(`refused: blob ${oneWheel.sha256} in the source holds other bytes \\(sha256 ${sha256(bad)}`));
    assert.equal(existsSync(new FileBlobStore(target).localPath(oneWheel.sha256)), false, 'the bad bytes were not copied');
  });

  test('what the target has with other values is a conflict: reported, kept, and the command fails', async () => {
    const targetDir = join(dir, 'target-conflict');
    const other = await startLarder({}, targetDir);
    larders.push(other);
    await other.addUser('alice', 'another-password');
    const impostor = await buildWheel(join(dir, 'other'), { name: 'acme-two', version: '2.0', summary: 'other bytes, same name' });
    assert.equal((await upload(other.url, impostor, basicAuth('alice', 'another-password'))).status, 200);
    await other.stop();
    const run = await cli(['migrate', '--to', fileUrl(targetDir), '--blobs', fileUrl(targetDir)]);
    assert.equal(run.code, 1, output(run));
    assert.match(run.stdout, /conflict: user alice exists in the target with another password or role; kept the target's/);
    assert.match(run.stdout, new RegExp(`conflict: acme-two/${impostor.filename} exists in the target with other bytes`));
    assert.match(run.stdout, new RegExp(`check: file acme-two/${impostor.filename} differs in the target`));
    assert.match(run.stdout, /check FAILED/);
    const storage = openStorage(targetDir);
    try {
      assert.equal((await storage.index.getFile('acme-two', impostor.filename))?.sha256, impostor.sha256, "the target's file is kept");
      assert.ok(await storage.index.getFile('acme-one', oneWheel.filename), 'the rest was migrated');
    } finally {
      await storage.close();
    }
  });

  test('only the database, or only the blobs; refusals', async () => {
    const dbOnly = join(dir, 'target-db');
    const db = await cli(['migrate', '--to', fileUrl(dbOnly)]);
    assert.equal(db.code, 0, output(db));
    assert.match(db.stdout, /blobs: not migrated \(no --blobs\)/);
    assert.match(db.stdout, /check passed: 2 projects/);
    assert.equal(existsSync(join(dbOnly, 'blobs', 'sha256')), false, 'no blob copied');
    const blobsOnly = join(dir, 'target-blobs');
    const b = await cli(['migrate', '--blobs', fileUrl(blobsOnly)]);
    assert.equal(b.code, 0, output(b));
    assert.match(b.stdout, /records: not migrated \(no --to\)/);
    assert.match(b.stdout, /check passed: \d+ blobs/);

    const none = await cli(['migrate']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /nothing to migrate to/);
    const configured = await cli(['migrate', '--to', fileUrl(dbOnly)], { LARDER_DATABASE_URL: 'postgres://u:p@db/larder' });
    assert.equal(configured.code, 2);
    assert.match(configured.stderr, /must be a local one, but LARDER_DATABASE_URL is set/);
    const pg = await cli(['migrate', '--to', 'postgres://u:secret@127.0.0.1:1/larder']);
    assert.equal(pg.code, 1, output(pg));
    assert.match(pg.stderr, /postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/larder.*unreachable/i, 'a database that is not there: named, without its password');
    assert.doesNotMatch(pg.stderr, /secret/);
    const self = await cli(['migrate', '--blobs', fileUrl(source.data)]);
    assert.equal(self.code, 2);
    assert.match(self.stderr, /is the data directory being migrated/);
  });
});
