/**
 * ARCHITECTURE invariants 2 (blob before record) and 3 (one transaction per change, serials only grow),
 * pinned with real kills: the real `larder serve` runs as a child process, many uploads run at once, the
 * child is SIGKILLed while they are in flight, and the data directory must still be consistent: every
 * file record has its complete blob, every acknowledged upload survived, changelog and serials agree,
 * and a restarted server purges tmp/ and serves every file with the right hash.
 */
import assert from 'node:assert/strict';
import { createHash, randomInt } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test, type TestContext } from 'node:test';
import type { BlobStore } from '../../src/store/blob-store.js';
import { FileBlobStore } from '../../src/store/fs/file-blob-store.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import { runCommand } from '../fixtures/clients.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { cliEnv, startChildServer, type ChildServer } from '../helpers/child-server.js';
import { uploadForm } from '../helpers/upload-form.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(REPO, 'src', 'main.ts');
const SMALL_PROJECTS = 8;
const SMALL_PER_ROUND = 40;
const LARGE_PER_ROUND = 3;
const LARGE_BYTES = 20_000_000;

const sha256File = async (path: string): Promise<string> => {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
};

/** Every regular file under `dir`, as paths relative to it. */
async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

const startServe = (data: string) => startChildServer(['--upstream', 'none', '--data', data]);

async function stopServe(server: ChildServer, signal: NodeJS.Signals): Promise<[number | null, NodeJS.Signals | null]> {
  const { code, signal: got } = await server.stop(signal);
  return [code, got];
}

interface UploadResult {
  dist: BuiltDist;
  status: number | null;
  error?: string;
}

/**
 * Sends one upload as a paced stream (chunks with a pause between), so large uploads stay in flight long
 * enough for a kill to land mid-stream. `onSent` hears the running byte count.
 */
async function upload(url: string, token: string, dist: BuiltDist, onSent: (bytes: number) => void = () => {}): Promise<UploadResult> {
  try {
    const encoded = new Response(await uploadForm(dist));
    const contentType = encoded.headers.get('content-type')!;
    const body = Buffer.from(await encoded.arrayBuffer());
    const chunk = 128 * 1024;
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (offset >= body.length) return controller.close();
        const end = Math.min(offset + chunk, body.length);
        controller.enqueue(body.subarray(offset, end));
        offset = end;
        onSent(offset);
        await new Promise((resolve) => setTimeout(resolve, 2));
      },
    });
    const res = await fetch(`${url}/legacy/`, {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: { 'Content-Type': contentType, Authorization: `Basic ${Buffer.from(`__token__:${token}`).toString('base64')}` },
    } as RequestInit);
    await res.arrayBuffer().catch(() => undefined);
    return { dist, status: res.status, error: res.status === 200 ? undefined : res.statusText };
  } catch (err) {
    return { dist, status: null, error: String((err as Error).cause ?? err) };
  }
}

interface StoreSnapshot {
  files: number;
  /** Blobs no record points at: allowed (a crash between blob and record), collected later. */
  orphans: number;
  projects: number;
  lastSerial: number;
}

/** The invariants, checked on the data directory with no server running. */
async function checkStore(data: string, known: Map<string, BuiltDist>, acknowledged: BuiltDist[]): Promise<StoreSnapshot> {
  const storage = openStorage(data);
  const { index: meta, blobs } = storage;
  try {
    const lastSerial = await meta.lastSerial();
    const files = await Array.fromAsync(meta.allFiles());
    // Invariant 2: no record without its complete bytes.
    for (const file of files) {
      const path = blobs.localPath(file.sha256)!;
      const info = await stat(path).catch(() => null);
      assert.ok(info, `${file.filename}: record without blob ${path}`);
      assert.equal(info.size, file.size, `${file.filename}: blob size`);
      assert.equal(await sha256File(path), file.sha256, `${file.filename}: blob hash`);
      const sent = known.get(file.filename);
      assert.ok(sent, `${file.filename}: a file nobody uploaded`);
      assert.equal(file.sha256, sent.sha256);
      if (file.metadataSha256) {
        const metaPath = blobs.localPath(file.metadataSha256)!;
        assert.equal(await sha256File(metaPath), file.metadataSha256, `${file.filename}: .metadata blob`);
        assert.equal(file.metadataSha256, sent.metadataSha256);
      } else {
        assert.fail(`${file.filename}: a wheel without a .metadata blob`);
      }
    }
    // An acknowledged upload is durable.
    const names = new Set(files.map((f) => f.filename));
    for (const dist of acknowledged) assert.ok(names.has(dist.filename), `${dist.filename} was acknowledged with 200 but is gone`);

    // Invariant 3: serials only grow; file, serial and changelog entry were written together.
    const changes = await meta.changesSince(0);
    if (changes.length === 0) {
      // Killed before the first transaction: nothing at all may be recorded.
      assert.equal(lastSerial, 0);
      assert.equal(files.length, 0);
      assert.equal(await meta.projectCount(), 0);
      return { files: 0, orphans: await countOrphans(blobs, files), projects: 0, lastSerial };
    }
    changes.forEach((c, i) => {
      assert.equal(c.serial, i + 1, 'changelog serials are 1, 2, 3, … with no gap');
      if (i > 0) assert.ok(c.serial > changes[i - 1]!.serial);
    });
    assert.equal(changes.at(-1)!.serial, lastSerial, 'the global serial is the last changelog entry');
    const added = changes.filter((c) => c.action === 'add file');
    assert.deepEqual(added.map((c) => c.filename).sort(), [...names].sort(), 'one "add file" entry per file record');
    const projects = await Array.fromAsync(meta.listProjects());
    for (const project of projects) {
      assert.ok(project.serial <= lastSerial, `${project.name}: serial ${project.serial} > global ${lastSerial}`);
      const own = changes.filter((c) => c.project === project.name);
      assert.equal(project.serial, own.at(-1)!.serial, `${project.name}: serial is its last change`);
      assert.equal(own.filter((c) => c.action === 'create project').length, 1, `${project.name}: created once`);
      assert.ok((await meta.getFiles(project.name)).length > 0, `${project.name}: a project without files`);
    }
    for (const c of added) {
      const release = await meta.getRelease(c.project, c.version!);
      assert.ok(release, `${c.filename}: file without its release`);
    }
    return { files: files.length, orphans: await countOrphans(blobs, files), projects: projects.length, lastSerial };
  } finally {
    await storage.close();
  }
}

async function countOrphans(blobs: BlobStore, files: { sha256: string; metadataSha256: string | null }[]): Promise<number> {
  const referenced = new Set(files.flatMap((f) => [f.sha256, f.metadataSha256]));
  let orphans = 0;
  for await (const blob of blobs.list()) if (!referenced.has(blob.sha256)) orphans++;
  return orphans;
}

/** Everything the restarted server lists downloads with the advertised hash; tmp/ was purged. */
async function checkServed(url: string, data: string, expectedFiles: number): Promise<void> {
  const accept = { Accept: 'application/vnd.pypi.simple.v1+json' };
  const root = (await (await fetch(`${url}/simple/`, { headers: accept })).json()) as { projects: { name: string }[] };
  let count = 0;
  for (const { name } of root.projects) {
    const res = await fetch(`${url}/simple/${name}/`, { headers: accept });
    assert.equal(res.status, 200, name);
    const page = (await res.json()) as { files: { filename: string; url: string; size: number; hashes: { sha256: string } }[] };
    for (const file of page.files) {
      const download = await fetch(new URL(file.url, `${url}/simple/${name}/`));
      assert.equal(download.status, 200, file.filename);
      const bytes = Buffer.from(await download.arrayBuffer());
      assert.equal(bytes.length, file.size, `${file.filename}: size`);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), file.hashes.sha256, `${file.filename}: hash`);
      count++;
    }
  }
  assert.equal(count, expectedFiles, 'every file record is listed');
  assert.deepEqual(await walk(join(data, 'tmp')), [], 'tmp/ is empty after start-up');
}

type Moment = 'first new blob' | 'mid-stream of a large upload' | 'random acknowledgement count';

describe('crash safety: SIGKILL while uploads are in flight', () => {
  let tmp: string;
  let data: string;
  let token: string;
  const known = new Map<string, BuiltDist>();
  const acknowledged: BuiltDist[] = [];
  let running: ChildServer | null = null;

  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'larder-crash-'));
    data = join(tmp, 'data');
    const opts = { cwd: REPO, env: cliEnv(), timeoutMs: 60_000 };
    const user = await runCommand(process.execPath, ['--import', 'tsx', MAIN, 'user', 'add', 'crash', '--password-stdin', '--data', data], {
      ...opts,
      input: 'crash-password-1\n',
    });
    assert.equal(user.code, 0, user.stderr);
    const created = await runCommand(process.execPath, ['--import', 'tsx', MAIN, 'token', 'create', 'crash', '--data', data], opts);
    assert.equal(created.code, 0, created.stderr);
    token = created.stdout.trim().split('\n').at(-1)!.trim();
    assert.match(token, /^larder-/);
  });
  after(async () => {
    if (running) await stopServe(running, 'SIGKILL');
    await rm(tmp, { recursive: true, force: true });
  });

  const round = async (t: TestContext, index: number, moment: Moment) => {
    const dists = join(tmp, `dists-${index}`);
    const small = await Promise.all(
      Array.from({ length: SMALL_PER_ROUND }, (_, i) =>
        buildWheel(dists, {
          name: `crash-p${i % SMALL_PROJECTS}`,
          version: `${index}.${i}`,
          extraFiles: { [`crash_p${i % SMALL_PROJECTS}/pad.txt`]: 'x'.repeat(randomInt(100, 50_000)) },
        }),
      ),
    );
    const large: BuiltDist[] = [];
    for (let i = 0; i < LARGE_PER_ROUND; i++) {
      large.push(await buildWheel(dists, { name: 'crash-big', version: `${index}.${i}`, dataFile: { bytes: LARGE_BYTES, seed: `round-${index}-${i}` } }));
    }
    for (const d of [...small, ...large]) known.set(d.filename, d);

    const server = await startServe(data);
    running = server;
    const killAfterAcks = moment === 'random acknowledgement count' ? randomInt(1, SMALL_PER_ROUND) : Infinity;
    const killDelay = moment === 'random acknowledgement count' ? randomInt(0, 20) : 0;
    t.diagnostic(`round ${index}: kill at ${moment}${Number.isFinite(killAfterAcks) ? ` (after ${killAfterAcks} acks + ${killDelay} ms)` : ''}`);

    let acks = 0;
    let killed = false;
    let backstop = false;
    let tmpAtKill: string[] = [];
    const kill = () => {
      if (killed) return;
      killed = true;
      void walk(join(data, 'tmp')).then((files) => (tmpAtKill = files));
      server.child.kill('SIGKILL');
    };
    const onDone = (r: UploadResult) => {
      if (r.status === 200 && !killed) {
        acks++;
        if (acks >= killAfterAcks) setTimeout(kill, killDelay);
      }
      return r;
    };
    // 'first new blob': kill as soon as a blob the store did not have appears, i.e. between the first blob
    // commit and (probably) its LMDB transaction.
    let watching = moment === 'first new blob';
    const blobsDir = new FileBlobStore(data).blobsDir;
    const blobsBefore = new Set(await walk(blobsDir));
    const watcher = (async () => {
      while (watching && !killed) {
        if ((await walk(blobsDir)).some((f) => !blobsBefore.has(f))) kill();
        else await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    // Small and large uploads all at once; the large ones in the middle of the batch.
    const batch = [...small.slice(0, SMALL_PER_ROUND / 2), ...large, ...small.slice(SMALL_PER_ROUND / 2)];
    const results = await Promise.all(
      batch.map((dist) =>
        upload(server.url, token, dist, (sent) => {
          if (dist.size <= LARGE_BYTES) return;
          if (moment === 'mid-stream of a large upload' && sent >= dist.size / 2) kill();
          // Whatever the moment, kill before a large upload completes, so the kill always lands mid-stream.
          if (sent >= dist.size * 0.9 && !killed) {
            backstop = true;
            kill();
          }
        }).then(onDone),
      ),
    );
    watching = false;
    await watcher;
    const [code, signal] = await stopServe(server, 'SIGKILL');
    running = null;
    assert.ok(killed, `the kill should have landed while uploads were in flight (${acks} acknowledged)`);
    assert.equal(signal, 'SIGKILL', `exit code ${code}; log:\n${server.output().slice(-2000)}`);

    for (const r of results) {
      // Before the kill every upload that finished must have succeeded; after it, connections just break.
      if (r.status !== null) assert.equal(r.status, 200, `${r.dist.filename}: ${r.status} ${r.error}`);
      if (r.status === 200) acknowledged.push(r.dist);
    }
    const interrupted = results.filter((r) => r.status === null).length;
    assert.ok(interrupted > 0, 'some uploads were cut off by the kill');
    const snapshot = await checkStore(data, known, acknowledged);
    const leftovers = await walk(join(data, 'tmp'));
    t.diagnostic(
      `round ${index}: ${results.length - interrupted} answered, ${interrupted} cut off; store has ${snapshot.files} files in ` +
        `${snapshot.projects} projects (${snapshot.orphans} orphan blobs), serial ${snapshot.lastSerial}; ` +
        `tmp/ at kill: ${tmpAtKill.length}, after: ${leftovers.length}` +
        (backstop ? ' (killed by the backstop: a large upload was 90% sent)' : ''),
    );

    // Restart on the same directory: tmp/ purged, every recorded file served intact.
    const again = await startServe(data);
    running = again;
    try {
      await checkServed(again.url, data, snapshot.files);
    } finally {
      const [stopCode] = await stopServe(again, 'SIGTERM');
      running = null;
      assert.equal(stopCode, 0, again.output().slice(-2000));
    }
    await rm(dists, { recursive: true, force: true });
  };

  test('kill as soon as the first blob is committed', (t) => round(t, 1, 'first new blob'));
  test('kill while a large upload is half sent', (t) => round(t, 2, 'mid-stream of a large upload'));
  test('kill after a random number of acknowledgements', (t) => round(t, 3, 'random acknowledgement count'));
});

describe('BlobStore.commit never exposes a partial blob', () => {
  let dir: string;
  let store: FileBlobStore;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-blobs-'));
    store = new FileBlobStore(dir);
    await store.init();
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Every file under blobs/ is a complete blob: named by its own sha256, at its own path. */
  async function assertOnlyCompleteBlobs(): Promise<string[]> {
    const names: string[] = [];
    for (const rel of await walk(store.blobsDir)) {
      const path = join(store.blobsDir, rel);
      const sha = await sha256File(path);
      assert.equal(path, store.localPath(sha)!, `${rel} is not a complete blob`);
      names.push(sha);
    }
    return names;
  }

  test('a write in progress in tmp/ is invisible under blobs/; commit makes the whole file appear at once', async () => {
    const content = Buffer.alloc(3 * 1024 * 1024, 7);
    const sha = createHash('sha256').update(content).digest('hex');
    const tmpPath = store.tmpPath('test');
    const out = createWriteStream(tmpPath);
    await new Promise<void>((resolve, reject) => out.write(content.subarray(0, 1024 * 1024), (err) => (err ? reject(err) : resolve())));
    assert.deepEqual(await walk(store.blobsDir), [], 'half-written data is not under blobs/');
    assert.equal(await store.has(sha), false);
    assert.equal(await store.size(sha), null);
    await new Promise<void>((resolve, reject) => out.end(content.subarray(1024 * 1024), () => resolve()).once('error', reject));

    await store.commit(tmpPath, sha);
    const committed = store.localPath(sha);
    assert.deepEqual(await assertOnlyCompleteBlobs(), [sha]);
    assert.ok((await readFile(committed)).equals(content));
    assert.equal(await store.size(sha), content.length);
    assert.deepEqual(await walk(store.tmpDir), [], 'the temporary file was renamed, not copied');
  });

  test('a tmp write without commit leaves blobs/ untouched, and purgeTmp removes it', async () => {
    const before = await walk(store.blobsDir);
    const orphan = store.tmpPath('orphan');
    await writeFile(orphan, 'never committed');
    assert.deepEqual(await walk(store.blobsDir), before);
    assert.equal(await store.has(createHash('sha256').update('never committed').digest('hex')), false);
    assert.equal(await store.purgeTmp(), 1);
    assert.deepEqual(await walk(store.tmpDir), []);
    assert.deepEqual(await walk(store.blobsDir), before);
  });

  test('committing an existing blob keeps the first and drops the temporary file; concurrent commits give one blob', async () => {
    const content = Buffer.from('same bytes twice');
    const sha = createHash('sha256').update(content).digest('hex');
    const paths = [store.tmpPath('a'), store.tmpPath('b'), store.tmpPath('c')];
    await Promise.all(paths.map((p) => writeFile(p, content)));
    await Promise.all(paths.slice(0, 2).map((p) => store.commit(p, sha)));
    await store.commit(paths[2]!, sha);
    assert.deepEqual(await walk(store.tmpDir), []);
    const blobs = await assertOnlyCompleteBlobs();
    assert.equal(blobs.filter((b) => b === sha).length, 1);
    assert.ok((await readFile(store.localPath(sha)!)).equals(content));

    const small = Buffer.from('Metadata-Version: 2.1\nName: x\nVersion: 1\n\n');
    const smallSha = createHash('sha256').update(small).digest('hex');
    await store.writeBuffer(small, smallSha);
    assert.ok((await readFile(store.localPath(smallSha)!)).equals(small));
    await assertOnlyCompleteBlobs();
    const listed: string[] = [];
    for await (const blob of store.list()) listed.push(blob.sha256);
    assert.deepEqual(listed.sort(), (await assertOnlyCompleteBlobs()).sort());
  });
});
