/**
 * `larder export` / `larder import` as real CLI processes against data directories: an export taken while
 * uploads keep arriving imports into an empty directory with every blob verified; a re-run adds nothing;
 * conflicts are reported and the local file kept (also while the target's server runs); damaged archives
 * are refused naming the bad entry with the target left exactly as it was; --private-only, --cache-only,
 * --project and --include-users select what they say; progress lines appear when stderr is not a terminal.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { openStorage } from '../../src/store/local/open-storage.js';
import type { Storage } from '../../src/store/storage.js';
import type { ProjectRecord } from '../../src/store/records.js';
import type { ExportHeader, Manifest } from '../../src/transfer/archive-format.js';
import { Progress } from '../../src/transfer/progress.js';
import { runCommand, type CommandResult } from '../fixtures/clients.js';
import { type CliResult, runLarderCli } from '../helpers/cli.js';
import { buildSdist, buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { eventually } from '../helpers/eventually.js';
import { uploadForm } from '../helpers/upload-form.js';
import { RECORD_KINDS, storedRecords, type RecordKind } from '../helpers/stored-records.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(REPO, 'src', 'main.ts');
const JSON_ACCEPT = 'application/vnd.pypi.simple.v1+json';
const AUTH = basicAuth('alice', 'alice-password');

function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('LARDER_')) env[key] = value;
  return { ...env, LARDER_UPSTREAM: 'none' };
}

const larderCli = (args: string[]): Promise<CommandResult> =>
  runCommand(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: REPO, env: cliEnv(), timeoutMs: 120_000 });
/** The same command line in this process (its own code, as src/main.ts runs it), where a process each only adds start-up. */
const larderHere = runLarderCli;

const output = (r: Pick<CommandResult, 'code' | 'stdout' | 'stderr'>) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

interface TarEntry {
  name: string;
  size: number;
  headerOffset: number;
  dataOffset: number;
}

/** The entries of a plain ustar archive (what `larder export` writes), with their offsets. */
function tarEntries(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  while (offset + 512 <= archive.length) {
    const header = archive.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, end: number) => header.toString('utf8', start, end).replace(/\0[\s\S]*$/, '');
    const prefix = field(345, 500);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = parseInt(field(124, 136).trim() || '0', 8);
    entries.push({ name, size, headerOffset: offset, dataOffset: offset + 512 });
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

interface Archive {
  bytes: Buffer;
  entries: TarEntry[];
  header: ExportHeader;
  manifest: Manifest;
  text(name: string): string;
  records(db: string): { k: unknown; v: Record<string, unknown> }[];
  blobs(): string[];
}

async function readArchive(path: string): Promise<Archive> {
  const bytes = await readFile(path);
  const entries = tarEntries(bytes);
  const text = (name: string) => {
    const e = entries.find((x) => x.name === name);
    assert.ok(e, `archive has no ${name}`);
    return bytes.toString('utf8', e.dataOffset, e.dataOffset + e.size);
  };
  return {
    bytes,
    entries,
    header: JSON.parse(text('larder-export.json')) as ExportHeader,
    manifest: JSON.parse(text('manifest.json')) as Manifest,
    text,
    records: (db) => (entries.some((e) => e.name === `records/${db}.jsonl`) ? lines(text(`records/${db}.jsonl`)).map((l) => JSON.parse(l)) : []),
    blobs: () => entries.filter((e) => e.name.startsWith('blobs/')).map((e) => e.name.slice('blobs/'.length)),
  };
}

/** Everything observable in a data directory: blobs on disk, records per database, serial, staging leftovers. */
async function dataState(data: string): Promise<{ blobs: string[]; records: Record<string, string[]>; serial: number; tmp: string[] }> {
  const blobs: string[] = [];
  const walk = (dir: string) => {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) /^[0-9a-f]{64}$/.test(n) ? blobs.push(n) : walk(join(dir, n));
  };
  walk(join(data, 'blobs'));
  const storage = openStorage(data);
  try {
    const records: Record<string, string[]> = {};
    for (const kind of RECORD_KINDS)
      records[kind] = Array.from(await storedRecords(storage, kind), ([name, value]) => JSON.stringify([JSON.parse(name), value]));
    let tmp: string[] = [];
    try {
      tmp = readdirSync(join(data, 'tmp'));
    } catch {
      /* none */
    }
    return { blobs: blobs.sort(), records, serial: await storage.index.lastSerial(), tmp };
  } finally {
    await storage.close();
  }
}

describe('export and import (larder export / larder import)', () => {
  let dir: string;
  let up: FakeUpstream;
  let source: TestLarder;
  let oneWheel: BuiltDist;
  let oneSdist: BuiltDist;
  let twoWheel: BuiltDist;
  let upApp: BuiltDist;
  let upDep: BuiltDist;
  let archivePath: string;
  let archive: Archive;
  let target1: string;
  const larders: TestLarder[] = [];

  const upload = async (server: TestLarder, dist: BuiltDist) => {
    const res = await fetch(`${server.url}/legacy/`, { method: 'POST', body: await uploadForm(dist), headers: { Authorization: AUTH } });
    assert.equal(res.status, 200, `${dist.filename}: ${res.status} ${await res.text()}`);
  };

  /** Reads a project page and every file (and `.metadata`) through larder, so the cache holds them. */
  const fetchThrough = async (server: TestLarder, project: string) => {
    const res = await fetch(`${server.url}/simple/${project}/`, { headers: { Accept: JSON_ACCEPT } });
    assert.equal(res.status, 200, `${project}: ${res.status}`);
    const page = (await res.json()) as { files: { url: string; 'core-metadata'?: unknown }[] };
    for (const f of page.files) {
      const url = new URL(f.url, `${server.url}/simple/${project}/`).toString();
      const file = await fetch(url);
      assert.equal(file.status, 200, url);
      await file.arrayBuffer();
      if (f['core-metadata']) {
        const meta = await fetch(`${url}.metadata`);
        assert.equal(meta.status, 200, `${url}.metadata`);
        await meta.arrayBuffer();
      }
    }
    const api = await fetch(`${server.url}/pypi/${project}/json`);
    assert.equal(api.status, 200);
    await api.arrayBuffer();
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-transfer-'));
    upDep = await buildWheel(join(dir, 'up'), { name: 'up-dep', version: '1.0' });
    upApp = await buildWheel(join(dir, 'up'), { name: 'UP_App', version: '2.0', requiresDist: ['up-dep'] });
    up = await startFakeUpstream();
    up.addProject('up-dep', [upDep]);
    up.addProject('UP_App', [upApp]);
    source = await startLarder({ upstream: up.url, upstreamRetries: 0 });
    larders.push(source);
    await source.addUser('alice', 'alice-password');
    oneWheel = await buildWheel(join(dir, 'src'), { name: 'acme-one', version: '1.0' });
    oneSdist = await buildSdist(join(dir, 'src'), { name: 'acme-one', version: '1.0' });
    twoWheel = await buildWheel(join(dir, 'src'), { name: 'acme-two', version: '1.0' });
    for (const d of [oneWheel, oneSdist, twoWheel]) await upload(source, d);
    await fetchThrough(source, 'up-app');
    await fetchThrough(source, 'up-dep');
    archivePath = join(dir, 'full.tar');
  });

  after(async () => {
    for (const l of larders) await l.close();
    await up?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    if (target1) await rm(target1, { recursive: true, force: true });
  });

  test('an export taken while uploads arrive imports into an empty data directory with every blob verified', async () => {
    let stop = false;
    let uploaded = 0;
    const uploads = (async () => {
      for (let i = 0; !stop; i++) {
        await upload(source, await buildWheel(join(dir, 'busy'), { name: 'acme-busy', version: `1.0.${i}` }));
        uploaded++;
      }
    })();
    while (uploaded < 2) await new Promise((r) => setTimeout(r, 20));
    const before = uploaded;
    const exported = await larderCli(['export', archivePath, '--data', source.data, '--progress-interval', '0']);
    const during = uploaded;
    stop = true;
    await uploads;
    assert.equal(exported.code, 0, output(exported));
    assert.ok(during > before, `uploads should continue while the export runs (${before} → ${during})`);
    assert.match(exported.stdout, /^exported 3 projects?, \d+ releases, \d+ files, .*; \d+ blobs \(.*\)$/m);
    assert.match(exported.stdout, new RegExp(`^wrote ${archivePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`, 'm'));
    // Not a terminal: plain progress lines, then a final one.
    const progress = lines(exported.stderr).filter((l) => /^export: \d+\/\d+ files, \S+ \S+ of \S+ \S+/.test(l));
    assert.ok(progress.length >= 3, exported.stderr);
    assert.match(progress.at(-1)!, /, done in \d+\.\d s$/);
    assert.ok(!exported.stderr.includes('\r'), 'no terminal bar when stderr is not a terminal');
    assert.doesNotMatch(exported.stderr, /left out/, 'every record of the snapshot had its blobs');

    archive = await readArchive(archivePath);
    const { header } = archive;
    assert.equal(archive.entries[0]!.name, 'larder-export.json');
    assert.equal(archive.entries.at(-1)!.name, 'manifest.json');
    assert.equal(header.format, 'larder-export');
    assert.equal(header.formatVersion, 1);
    const files = archive.records('files');
    assert.equal(files.length, header.counts.records.files);
    const busy = files.filter((f) => f.v.project === 'acme-busy').length;
    assert.ok(busy >= before && busy <= during + 1, `snapshot holds ${busy} busy uploads (${before}…${during + 1})`);
    // The manifest covers every entry before it, with the right sizes and hashes.
    assert.deepEqual(
      archive.manifest.entries.map((e) => e.name),
      archive.entries.slice(0, -1).map((e) => e.name),
    );
    for (const m of archive.manifest.entries) {
      const e = archive.entries.find((x) => x.name === m.name)!;
      assert.equal(e.size, m.size, m.name);
      assert.equal(sha256(archive.bytes.subarray(e.dataOffset, e.dataOffset + e.size)), m.sha256, m.name);
    }
    assert.equal(new Set(archive.blobs()).size, archive.blobs().length, 'each blob once');
    assert.equal(
      archive.records('upstream-docs').some((r) => JSON.stringify(r.k) === '["root"]'),
      false,
    );
    assert.ok(archive.records('upstream-files').length >= 3, 'cached wheels and their .metadata');

    target1 = await mkdtemp(join(tmpdir(), 'larder-transfer-target-'));
    const imported = await larderCli(['import', archivePath, '--data', target1, '--progress-interval', '0']);
    assert.equal(imported.code, 0, output(imported));
    assert.match(imported.stdout, new RegExp(`^verified ${archive.entries.length} entries`, 'm'));
    assert.match(
      imported.stdout,
      new RegExp(
        `^added ${files.length} files, ${header.counts.records['upstream-docs']! + header.counts.records['upstream-files']!} cache entries; skipped 0 identical files, 0 conflicts$`,
        'm',
      ),
    );
    assert.ok(
      lines(imported.stderr).some((l) => /^import: \d+\/\d+ files, .*imported in/.test(l)),
      imported.stderr,
    );

    const storage = openStorage(target1);
    const { index: meta, blobs } = storage;
    try {
      const hashOf = (sha: string) => sha256(readFileSync(blobs.localPath(sha)!));
      const local = await Array.fromAsync(meta.allFiles());
      assert.equal(local.length, header.counts.records.files);
      for (const f of local) {
        assert.equal(hashOf(f.sha256), f.sha256, f.filename);
        if (f.metadataSha256) assert.equal(hashOf(f.metadataSha256), f.metadataSha256, `${f.filename}.metadata`);
      }
      assert.equal(await meta.projectCount(), header.counts.records.projects);
      const cached = await Array.fromAsync(storage.cachedFiles.entries());
      assert.equal(cached.length, header.counts.records['upstream-files']);
      for (const { record } of cached) assert.equal(hashOf(record.sha256), record.sha256);
      assert.equal(Array.from(storage.documents.entries()).length, header.counts.records['upstream-docs']);
      // Every added file took a local serial with a changelog entry.
      const changes = await meta.changesSince(0);
      assert.equal(changes.filter((c) => c.action === 'add file').length, local.length);
      assert.equal(await meta.lastSerial(), local.length + header.counts.records.projects!);
    } finally {
      await storage.close();
    }
  });

  test('importing the same archive again adds nothing', async () => {
    assert.ok(target1, 'needs the first import');
    const beforeState = await dataState(target1);
    const again = await larderCli(['import', archivePath, '--data', target1]);
    assert.equal(again.code, 0, output(again));
    assert.match(again.stdout, /^added 0 files, 0 cache entries; skipped \d+ identical files, 0 conflicts$/m);
    assert.match(again.stdout, /^0 new records$/m);
    assert.deepEqual(await dataState(target1), beforeState);
  });

  test('the imported directory serves private and cached projects offline', async () => {
    assert.ok(target1, 'needs the first import');
    const offline = await startLarder({ upstream: 'http://127.0.0.1:9/simple/', offline: true }, target1);
    larders.push(offline);
    try {
      for (const [project, dist] of [
        ['acme-one', oneWheel],
        ['up-app', upApp],
        ['up-dep', upDep],
      ] as const) {
        const res = await fetch(`${offline.url}/simple/${project}/`, { headers: { Accept: JSON_ACCEPT } });
        assert.equal(res.status, 200, project);
        const page = (await res.json()) as { files: { filename: string; url: string }[] };
        const entry = page.files.find((f) => f.filename === dist.filename);
        assert.ok(entry, `${project} lists ${dist.filename}`);
        const file = await fetch(new URL(entry.url, `${offline.url}/simple/${project}/`));
        assert.equal(file.status, 200);
        assert.equal(sha256(Buffer.from(await file.arrayBuffer())), dist.sha256);
      }
    } finally {
      await offline.stop();
    }
  });

  test('a private file with other bytes here is a conflict: reported, the local file kept (server running)', async () => {
    const target = await startLarder();
    larders.push(target);
    await target.addUser('alice', 'alice-password');
    const mine = await buildWheel(join(dir, 'other'), { name: 'acme-one', version: '1.0', modules: { 'acme_one/__init__.py': 'VALUE = "mine"\n' } });
    assert.equal(mine.filename, oneWheel.filename);
    assert.notEqual(mine.sha256, oneWheel.sha256);
    await upload(target, mine);
    const serialBefore = await target.larder.meta.lastSerial();

    const run = await larderCli(['import', archivePath, '--data', target.data]);
    assert.equal(run.code, 0, output(run));
    assert.deepEqual(
      lines(run.stdout).filter((l) => l.startsWith('conflict:')),
      [`conflict: acme-one/${oneWheel.filename} exists here with other bytes; kept the local file`],
    );
    assert.match(run.stdout, /skipped 0 identical files, 1 conflict$/m);
    assert.match(run.stdout, /^\d+ new records \(1 conflict reported above; not an error\)$/m);

    // The running server sees the import at once, and still serves its own wheel.
    const res = await fetch(`${target.url}/simple/acme-one/`, { headers: { Accept: JSON_ACCEPT } });
    const page = (await res.json()) as { files: { filename: string; hashes: { sha256: string } }[] };
    assert.equal(page.files.find((f) => f.filename === oneWheel.filename)!.hashes.sha256, mine.sha256);
    assert.ok(
      page.files.some((f) => f.filename === oneSdist.filename),
      'the sdist from the archive was added',
    );
    assert.equal((await fetch(`${target.url}/simple/acme-two/`)).status, 200);
    assert.ok((await target.larder.meta.lastSerial()) > serialBefore, 'serials only grow');
    const wheel = await fetch(`${target.url}/packages/acme-one/${oneWheel.filename}`);
    assert.equal(sha256(Buffer.from(await wheel.arrayBuffer())), mine.sha256);
  });

  test('damaged archives are refused naming the bad entry, and the target stays exactly as it was', async () => {
    assert.ok(archive, 'needs the export');
    const target = await mkdtemp(join(tmpdir(), 'larder-transfer-refused-'));
    // Something already there, so "unchanged" means more than "empty".
    const seed = await larderCli(['import', archivePath, '--data', target]);
    assert.equal(seed.code, 0, output(seed));
    {
      const storage = openStorage(target);
      await storage.index.remove('acme-two', null, null, null); // now a full import would change things again
      await storage.close();
    }
    const beforeState = await dataState(target);

    const { bytes, entries } = archive;
    const blob = entries.find((e) => e.name.startsWith('blobs/') && e.size > 100)!;
    const filesEntry = entries.find((e) => e.name === 'records/files.jsonl')!;
    const manifestEntry = entries.at(-1)!;
    const headerEntry = entries[0]!;

    const flipped = Buffer.from(bytes);
    const flipAt = blob.dataOffset + Math.floor(blob.size / 2);
    flipped[flipAt] = flipped[flipAt]! ^ 0x20;
    const truncated = bytes.subarray(0, blob.dataOffset + Math.floor(blob.size / 2));
    const noManifest = Buffer.concat([bytes.subarray(0, manifestEntry.headerOffset), Buffer.alloc(1024)]);
    const edited = Buffer.from(bytes);
    const recordText = edited.toString('latin1', filesEntry.dataOffset, filesEntry.dataOffset + filesEntry.size);
    const at = recordText.indexOf('"uploader":"alice"');
    assert.ok(at > 0);
    edited.write('"uploader":"mallo"', filesEntry.dataOffset + at, 'latin1');
    const future = Buffer.from(bytes);
    const headerText = future.toString('latin1', headerEntry.dataOffset, headerEntry.dataOffset + headerEntry.size);
    future.write('"formatVersion": 7', headerEntry.dataOffset + headerText.indexOf('"formatVersion": 1'), 'latin1');

    const blobName = blob.name.slice('blobs/'.length);
    const cases: [string, Buffer, RegExp][] = [
      [
        'flipped',
        flipped,
        new RegExp(`^larder: import refused: blobs/${blobName} has sha256 [0-9a-f]{64} but the manifest says ${blobName}; nothing was imported$`),
      ],
      [
        'truncated',
        truncated,
        new RegExp(`^larder: import refused: the archive is damaged or truncated \\(in entry blobs/${blobName.slice(0, 12)}…\\): .+; nothing was imported$`),
      ],
      ['no-manifest', noManifest, /^larder: import refused: manifest\.json is missing \(the archive is truncated or incomplete\); nothing was imported$/],
      ['edited', edited, /^larder: import refused: records\/files\.jsonl has sha256 [0-9a-f]{64} but the manifest says [0-9a-f]{64}; nothing was imported$/],
      ['future', future, /^larder: import refused: the archive has format version 7; this larder reads version 1; nothing was imported$/],
      ['not-tar', Buffer.from('hello, this is not an archive\n'.repeat(40)), /^larder: import refused: .*; nothing was imported$/],
    ];
    const results: CliResult[] = [];
    for (const [name, content] of cases) {
      const path = join(dir, `${name}.tar`);
      await writeFile(path, content);
      results.push(await larderHere(['import', path, '--data', target]));
    }
    cases.forEach(([name, , pattern], i) => {
      const r = results[i]!;
      assert.equal(r.code, 1, `${name}: ${output(r)}`);
      const errors = lines(r.stderr).filter((l) => !/^import: /.test(l));
      assert.equal(errors.length, 1, `${name}: one line on stderr\n${r.stderr}`);
      assert.match(errors[0]!, pattern, name);
      assert.equal(r.stdout, '', `${name}: nothing on stdout`);
    });
    assert.deepEqual(await dataState(target), beforeState, 'no blob, record or staging file was left');
    await rm(target, { recursive: true, force: true });
  });

  test('--private-only, --cache-only, --project and --include-users select what they say', async () => {
    const paths = { priv: join(dir, 'private.tar'), cache: join(dir, 'cache.tar'), proj: join(dir, 'project.tar'), users: join(dir, 'users.tar') };
    const runs = await Promise.all([
      larderCli(['export', paths.priv, '--private-only', '--data', source.data]),
      larderCli(['export', paths.cache, '--cache-only', '--data', source.data]),
      larderCli(['export', paths.proj, '--project', 'acme-one', '--project', 'UP_App', '--data', source.data]),
      larderCli(['export', paths.users, '--private-only', '--include-users', '--project', 'acme-two', '--data', source.data]),
    ]);
    for (const r of runs) assert.equal(r.code, 0, output(r));

    const recordNames = (a: Archive) => a.entries.filter((e) => e.name.startsWith('records/')).map((e) => e.name);
    const priv = await readArchive(paths.priv);
    assert.deepEqual(
      recordNames(priv),
      ['projects', 'releases', 'files', 'deleted-files', 'allowed-names'].map((d) => `records/${d}.jsonl`),
    );
    const privBlobs = new Set(priv.records('files').flatMap((f) => [f.v.sha256, f.v.metadataSha256].filter(Boolean) as string[]));
    assert.deepEqual(new Set(priv.blobs()), privBlobs);
    assert.ok(!priv.blobs().includes(upApp.sha256));

    const cache = await readArchive(paths.cache);
    assert.deepEqual(recordNames(cache), ['records/upstream-docs.jsonl', 'records/upstream-files.jsonl']);
    assert.deepEqual(new Set(cache.blobs()), new Set(cache.records('upstream-files').map((r) => r.v.sha256 as string)));
    assert.ok(cache.blobs().includes(upApp.sha256) && cache.blobs().includes(upDep.sha256));
    assert.ok(!cache.blobs().includes(oneWheel.sha256));

    const proj = await readArchive(paths.proj);
    assert.deepEqual(proj.header.options.projects, ['acme-one', 'up-app']);
    assert.deepEqual(
      proj.records('projects').map((r) => r.k),
      ['acme-one'],
    );
    assert.deepEqual(new Set(proj.records('files').map((r) => r.v.project)), new Set(['acme-one']));
    // acme-one may have a cached "not upstream" answer (asked when it was first uploaded): that is its cache part.
    const docNames = new Set(proj.records('upstream-docs').map((r) => (r.k as string[])[1]));
    assert.ok(docNames.has('up-app') && [...docNames].every((n) => n === 'up-app' || n === 'acme-one'), [...docNames].join());
    assert.deepEqual(new Set(proj.records('upstream-files').map((r) => (r.k as string[])[0])), new Set(['up-app']));
    assert.ok(!proj.blobs().includes(upDep.sha256) && !proj.blobs().includes(twoWheel.sha256));

    const users = await readArchive(paths.users);
    assert.deepEqual(
      users.records('users').map((r) => r.k),
      ['alice'],
    );
    assert.equal(users.records('users')[0]!.v.passwordHash, (await source.larder.meta.getUser('alice'))!.passwordHash);

    // A cache-only import brings no private project; a users import brings alice along.
    const t1 = await mkdtemp(join(tmpdir(), 'larder-transfer-sel-'));
    const t2 = await mkdtemp(join(tmpdir(), 'larder-transfer-sel-'));
    try {
      const [c, u] = await Promise.all([larderCli(['import', paths.cache, '--data', t1]), larderCli(['import', paths.users, '--include-users', '--data', t2])]);
      assert.equal(c.code, 0, output(c));
      assert.equal(u.code, 0, output(u));
      const s1 = await dataState(t1);
      assert.equal(s1.records.projects!.length, 0);
      assert.equal(s1.records['upstream-files']!.length, cache.records('upstream-files').length);
      const s2 = await dataState(t2);
      assert.deepEqual(
        s2.records.projects!.map((r) => JSON.parse(r)[0]),
        ['acme-two'],
      );
      assert.deepEqual(
        s2.records.users!.map((r) => JSON.parse(r)[0]),
        ['alice'],
      );
      assert.equal(s2.records['upstream-docs']!.length, 0);
    } finally {
      await rm(t1, { recursive: true, force: true });
      await rm(t2, { recursive: true, force: true });
    }

    const both = await larderCli(['export', join(dir, 'x.tar'), '--private-only', '--cache-only', '--data', source.data]);
    assert.equal(both.code, 2, output(both));
    assert.match(both.stderr, /^larder: --private-only and --cache-only exclude each other$/m);
  });

  test('an export that meets a damaged blob stops and leaves no archive behind', async () => {
    assert.ok(target1, 'needs the first import');
    const copy = await mkdtemp(join(tmpdir(), 'larder-transfer-damaged-'));
    try {
      await cp(target1, copy, { recursive: true });
      const storage = openStorage(copy);
      const path = storage.blobs.localPath(oneWheel.sha256)!;
      await storage.close();
      const bytes = await readFile(path);
      bytes[10] = bytes[10]! ^ 0xff;
      await writeFile(path, bytes);
      const out = join(dir, 'damaged-source.tar');
      const r = await larderCli(['export', out, '--data', copy]);
      assert.equal(r.code, 1, output(r));
      assert.match(r.stderr, new RegExp(`^larder: blob ${oneWheel.sha256} is damaged on disk \\(its content has sha256 [0-9a-f]{64}\\); export stopped$`, 'm'));
      assert.equal(r.stdout, '');
      const left = (await readdir(dir)).filter((n) => n.startsWith('damaged-source'));
      assert.deepEqual(left, [], 'neither FILE nor FILE.tmp nor the records work directory');
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });

  test('export --help and import --help explain the options; conflicts are not failures', async () => {
    const [e, i] = [await larderHere(['export', '--help']), await larderHere(['import', '--help'])];
    assert.equal(e.code, 0, output(e));
    assert.match(e.stdout, /^usage: larder export FILE \[--private-only \| --cache-only\] \[--project P\]\.\.\./m);
    assert.equal(i.code, 0, output(i));
    assert.match(i.stdout, /Conflicts are not failures: the exit code is 0/);
  });
});

describe('every record kind round-trips through export and import into an empty data directory', () => {
  let dir: string;
  let up: FakeUpstream;
  let source: TestLarder;
  let target: string;
  let targetStorage: Storage;
  let offline: TestLarder;
  let signed: BuiltDist;
  let reserved: BuiltDist;
  let upOld: BuiltDist;
  let upNew: BuiltDist;
  let token: string;
  const signature = Buffer.from('-----BEGIN PGP SIGNATURE-----\nnot really\n-----END PGP SIGNATURE-----\n');
  const alice = basicAuth('alice', 'alice-password');
  const root = basicAuth('root', 'root-password');

  const records = storedRecords;
  const sameRecords = async (kind: RecordKind) => {
    const here = await records(source.larder.storage, kind);
    assert.ok(here.size > 0, `the source has ${kind} records`);
    assert.deepEqual(await records(targetStorage, kind), here, kind);
  };
  const call = async (method: string, path: string, auth: string, body?: unknown) => {
    const res = await fetch(`${source.url}${path}`, {
      method,
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.equal(res.status, 200, `${method} ${path}: ${await res.text()}`);
  };
  const upload = async (server: TestLarder, dist: BuiltDist, auth: string, withSignature = false) => {
    const form = await uploadForm(dist);
    if (withSignature) form.append('gpg_signature', new Blob([signature]), `${dist.filename}.asc`);
    return fetch(`${server.url}/legacy/`, { method: 'POST', body: form, headers: { Authorization: auth } });
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-roundtrip-'));
    upOld = await buildWheel(join(dir, 'up'), { name: 'up-lib', version: '1.0', summary: 'the first release' });
    upNew = await buildWheel(join(dir, 'up'), { name: 'up-lib', version: '2.0', summary: 'the second release' });
    up = await startFakeUpstream();
    up.addProject('up-lib', [upOld, upNew]);
    source = await startLarder({ upstream: up.url, upstreamRetries: 0 });
    await source.addUser('alice', 'alice-password');
    await source.addUser('bob', 'bob-password');
    await source.addUser('root', 'root-password', true);
    token = await source.addToken('alice', ['acme-rt']);

    signed = await buildWheel(join(dir, 'p'), { name: 'Acme.RT', version: '1.0' });
    reserved = await buildWheel(join(dir, 'p'), { name: 'Acme.RT', version: '0.9' });
    const gone = await buildWheel(join(dir, 'p'), { name: 'acme-gone', version: '1.0' });
    for (const [dist, sig] of [
      [signed, true],
      [await buildSdist(join(dir, 'p'), { name: 'Acme.RT', version: '1.0' }), false],
      [reserved, false],
      [gone, false],
    ] as const) {
      const res = await upload(source, dist, alice, sig);
      assert.equal(res.status, 200, `${dist.filename}: ${res.statusText}`);
    }
    await call('POST', '/api/projects/acme-rt/releases/1.0/yank', alice, { reason: 'broken build' });
    await call('POST', '/api/projects/acme-rt/maintainers', alice, { user: 'bob' });
    await call('DELETE', `/api/projects/acme-rt/releases/0.9/files/${reserved.filename}`, alice);
    await call('DELETE', '/api/projects/acme-gone', alice);
    await call('POST', '/api/allowed-names', root, { name: 'Some.Allowed' });

    // The cache: the project page, the project's JSON document, the older release's own JSON document
    // and the newer release's wheel and .metadata.
    for (const path of [
      '/simple/up-lib/',
      '/pypi/up-lib/json',
      '/pypi/up-lib/1.0/json',
      `/packages/up-lib/${upNew.filename}`,
      `/packages/up-lib/${upNew.filename}.metadata`,
    ]) {
      const res = await fetch(`${source.url}${path}`);
      assert.equal(res.status, 200, path);
      await res.arrayBuffer();
    }
    // Cache writes are asynchronous; the export reads what is committed.
    const docs = [
      { kind: 'page', project: 'up-lib' },
      { kind: 'releases', project: 'up-lib' },
      { kind: 'release', project: 'up-lib', version: '1.0' },
    ];
    await eventually(async () => {
      const docKeys = [...(await records(source.larder.storage, 'upstream-docs')).keys()];
      return docs.every((id) => docKeys.includes(JSON.stringify(id))) && (await records(source.larder.storage, 'upstream-files')).size === 2;
    }, 'the source caches the page, both JSON documents, the wheel and its .metadata');

    const archive = join(dir, 'all.tar');
    const exported = await larderCli(['export', archive, '--include-users', '--data', source.data]);
    assert.equal(exported.code, 0, output(exported));
    target = await mkdtemp(join(tmpdir(), 'larder-roundtrip-target-'));
    const imported = await larderCli(['import', archive, '--include-users', '--grant-admins', '--data', target]);
    assert.equal(imported.code, 0, output(imported));
    offline = await startLarder({ upstream: 'http://127.0.0.1:9/simple/', offline: true }, target);
    targetStorage = offline.larder.storage;
  });

  after(async () => {
    await offline?.close();
    await source?.close();
    await up?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('projects: owners, maintainers and display names (serials are new here)', async () => {
    const here = await records(source.larder.storage, 'projects');
    const there = await records(targetStorage, 'projects');
    assert.deepEqual([...there.keys()], [...here.keys()]);
    for (const [key, value] of here) {
      const { serial, ...rest } = value as ProjectRecord;
      const imported = there.get(key) as ProjectRecord;
      assert.ok(serial > 0 && imported.serial > 0);
      assert.deepEqual({ ...imported, serial }, { ...rest, serial }, key);
    }
    assert.deepEqual((there.get('"acme-rt"') as ProjectRecord).maintainers, ['bob']);
  });

  test('releases, with their yanks', async () => {
    await sameRecords('releases');
    const doc = (await (await fetch(`${offline.url}/pypi/acme-rt/1.0/json`)).json()) as { info: { yanked: boolean; yanked_reason: string } };
    assert.equal(doc.info.yanked, true);
    assert.equal(doc.info.yanked_reason, 'broken build');
  });

  test('files, with their .metadata and .asc blobs', async () => {
    await sameRecords('files');
    const file = (await targetStorage.index.getFile('acme-rt', signed.filename))!;
    assert.equal(file.metadataSha256, signed.metadataSha256);
    assert.equal(file.signatureSha256, sha256(signature));
    for (const [suffix, digest] of [
      ['', signed.sha256],
      ['.metadata', signed.metadataSha256],
      ['.asc', sha256(signature)],
    ] as const) {
      const res = await fetch(`${offline.url}/packages/acme-rt/${signed.filename}${suffix}`);
      assert.equal(res.status, 200, suffix);
      assert.equal(sha256(Buffer.from(await res.arrayBuffer())), digest, suffix);
    }
  });

  test('deleted files: their names stay reserved', async () => {
    await sameRecords('deleted-files');
    const res = await upload(offline, reserved, alice);
    assert.equal(res.status, 400);
    assert.match(res.statusText, /previously used by a file that has since been deleted/);
  });

  test('allowed names', async () => {
    await sameRecords('allowed-names');
    assert.equal(await targetStorage.index.isNameAllowed('some-allowed'), true);
  });

  test('users and tokens (export and import --include-users, --grant-admins): they sign in here', async () => {
    await sameRecords('users');
    await sameRecords('tokens');
    const next = await buildWheel(join(dir, 'q'), { name: 'Acme.RT', version: '3.0' });
    const res = await upload(offline, next, basicAuth('__token__', token));
    assert.equal(res.status, 200, res.statusText);
  });

  test('upstream documents: project pages, project JSON and per-version JSON', async () => {
    await sameRecords('upstream-docs');
    const keys = [...(await records(targetStorage, 'upstream-docs')).keys()];
    assert.ok(keys.includes(JSON.stringify({ kind: 'release', project: 'up-lib', version: '1.0' })), keys.join(' '));
    const res = await fetch(`${offline.url}/pypi/up-lib/1.0/json`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { info: { summary: string } }).info.summary, 'the first release');
  });

  test('upstream files', async () => {
    await sameRecords('upstream-files');
    const res = await fetch(`${offline.url}/packages/up-lib/${upNew.filename}`);
    assert.equal(res.status, 200);
    assert.equal(sha256(Buffer.from(await res.arrayBuffer())), upNew.sha256);
  });
});

describe('progress reporter', () => {
  const sink = (isTTY: boolean) => {
    const writes: string[] = [];
    return { writes, stream: { isTTY, write: (s: string) => writes.push(s) } };
  };

  test('not a terminal: plain lines at most every interval, then a final line', () => {
    let now = 0;
    const { writes, stream } = sink(false);
    const p = new Progress({ label: 'export', stream, totalFiles: 450, totalBytes: 3.4e9, now: () => now });
    p.add(0, 1000); // the first line waits for an interval
    now = 500;
    p.add(1, 1.2e9);
    now = 1999;
    p.add(0, 0);
    now = 2100;
    p.add(119, 0); // 2 s passed: a line
    now = 4000;
    p.add(100, 0); // too soon after the last line
    now = 4200;
    p.add(30, 0);
    now = 5000;
    p.done();
    assert.deepEqual(writes, [
      'export: 120/450 files, 1.2 GB of 3.4 GB\n',
      'export: 250/450 files, 1.2 GB of 3.4 GB\n',
      'export: 250/450 files, 1.2 GB of 3.4 GB, done in 5.0 s\n',
    ]);
  });

  test('a terminal: one bar redrawn in place with \\r, ended by a newline', () => {
    let now = 0;
    const { writes, stream } = sink(true);
    const p = new Progress({ label: 'import', stream, totalBytes: 1000, now: () => now });
    p.add(0, 250);
    now = 50;
    p.add(0, 250); // under 100 ms: not redrawn
    now = 200;
    p.add(1, 500);
    p.done('imported');
    assert.ok(writes.slice(0, -1).every((w) => w.startsWith('\r')));
    assert.match(writes[0]!, /^\rimport: 0 files, 250 B of 1\.0 KB \[#{6}-{18}\] {2}25%/);
    assert.match(writes.at(-2)!, /100%, imported in 0\.2 s/);
    assert.equal(writes.at(-1), '\n');
    assert.equal(writes.length, 4);
  });
});
