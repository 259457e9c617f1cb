/**
 * `larder mirror add --dry-run` on an empty data directory plans the whole closure and stores no file:
 * with an upstream that publishes no `.metadata`, each wheel's METADATA is read by range requests (a
 * wheel whose central directory and METADATA lie beyond the first range included), or, when the upstream
 * ignores ranges, from the whole wheel downloaded to larder's tmp directory, verified and removed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { TAIL_BYTES, WINDOW_BYTES } from '../../src/mirror/upstream-ranges.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { runLarderCli } from '../helpers/cli.js';

let dir: string;
let upstream: FakeUpstream;
let app: BuiltDist;
let wide: BuiltDist;
let leaf: BuiltDist;
let requirements: string;
let runs = 0;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-mirror-dry-'));
  app = await buildWheel(join(dir, 'app'), { name: 'dry-app', version: '1.0', requiresDist: ['dry-wide>=1'], dataFile: { bytes: 1_000_000, seed: 'app' } });
  // A central directory and a METADATA (a long description that does not compress) larger than the first range.
  const modules: Record<string, string> = {};
  for (let i = 0; i < 3500; i++) modules[`dry_wide/module_with_a_long_name_${String(i).padStart(5, '0')}.py`] = `N = ${i}\n`;
  wide = await buildWheel(join(dir, 'wide'), {
    name: 'dry-wide',
    version: '2.0',
    requiresDist: ['dry-leaf; python_version >= "3.8"'],
    description: randomBytes(400_000).toString('base64'),
    modules,
  });
  leaf = await buildWheel(join(dir, 'leaf'), { name: 'dry-leaf', version: '3.0', dataFile: { bytes: 1_000_000, seed: 'leaf' } });
  upstream = await startFakeUpstream({ coreMetadata: false });
  upstream.addProject('dry-app', [app]);
  upstream.addProject('dry-wide', [wide]);
  upstream.addProject('dry-leaf', [leaf]);
  requirements = join(dir, 'requirements.txt');
  await writeFile(requirements, 'dry-app\n');
});

after(async () => {
  await upstream?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  upstream.clearLog();
  await upstream.setFault(null);
});

/** A dry run on a fresh data directory; the data directory is returned to look into. */
async function dryRun() {
  const data = join(dir, `data-${++runs}`);
  const env = { LARDER_UPSTREAM: upstream.url, LARDER_DATA: data };
  const run = await runLarderCli(['mirror', 'add', 'site', '-r', requirements, '--python', '3.11', '--platform', 'manylinux_2_17_x86_64', '--dry-run'], {
    env,
  });
  const stats = await runLarderCli(['cache', 'stats'], { env });
  return { ...run, data, stats: stats.stdout, tmp: await readdir(join(data, 'tmp')) };
}

const fileRequests = () => upstream.requestsTo('/files/');
const sentFor = (dist: BuiltDist) => fileRequests().filter((r) => r.path.endsWith(`/${dist.filename}`));

function assertWholeClosurePlanned(run: { code: number; stdout: string; stderr: string }): void {
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  for (const dist of [app, wide, leaf]) assert.match(run.stdout, new RegExp(`^${dist.name}  ${dist.filename.replace(/\./g, '\\.')}  `, 'm'));
  assert.match(run.stdout, /dry run: no file stored; 3 files planned/);
}

test('with ranges, a dry run reads each wheel METADATA by range requests and keeps nothing', async () => {
  upstream.configure({ ranges: true });
  try {
    const run = await dryRun();
    assertWholeClosurePlanned(run);
    assert.match(run.stdout, /read from the upstream, nothing kept \(.+ received\): the METADATA inside 3 wheels, 3 by range requests$/m);
    for (const r of fileRequests()) {
      assert.match(String(r.headers.range), /^bytes=\d+-\d+$/, `${r.path} asked by range`);
      assert.equal(r.status, 206);
    }
    for (const dist of [app, leaf]) {
      const sent = sentFor(dist);
      assert.equal(sent.length, 1, `${dist.filename}: one range, its tail`);
      assert.equal(sent[0]!.bytesSent, TAIL_BYTES, `${dist.filename}: only its tail of ${dist.size} bytes`);
    }
    assert.ok(wide.size > 2 * TAIL_BYTES, `the wide wheel (${wide.size} bytes) is larger than the first range`);
    assert.ok(sentFor(wide).length > 1, 'the wide wheel needed ranges beyond its tail');
    assert.ok(
      sentFor(wide).some((r) => r.bytesSent > WINDOW_BYTES),
      'its METADATA, larger than a window, came in one range of its own',
    );
    assert.match(run.stats, /^cached files {4}0 /m, run.stats);
    assert.deepEqual(run.tmp, []);
  } finally {
    upstream.configure({ ranges: false });
  }
});

test('without ranges, a dry run reads each whole wheel from a temporary file it removes, and keeps nothing', async () => {
  const run = await dryRun();
  assertWholeClosurePlanned(run);
  assert.match(run.stdout, /the METADATA inside 3 wheels, 3 downloaded whole to a temporary file and removed/);
  const [first, ...others] = fileRequests();
  assert.match(String(first!.headers.range), /^bytes=/, 'the first wheel is asked for by range');
  assert.equal(first!.status, 200, 'and comes whole');
  for (const r of others) assert.equal(r.headers.range, undefined, `once ranges were ignored, ${r.path} is asked for whole`);
  assert.equal(others.length, 3, 'the first wheel again without a range (no total deadline), then one request per wheel');
  for (const dist of [app, wide, leaf]) assert.equal(sentFor(dist).at(-1)!.bytesSent, dist.size, `${dist.filename} read whole`);
  assert.match(run.stats, /^cached files {4}0 /m, run.stats);
  assert.deepEqual(run.tmp, [], 'the temporary wheels are gone');
});

test('without ranges, a wheel whose bytes are not the ones the index lists is a problem, not a plan', async () => {
  await upstream.setFault({ kind: 'wrongHash', pathPrefix: new URL(upstream.fileUrl(leaf)).pathname });
  const run = await dryRun();
  assert.equal(run.code, 1, run.stdout);
  assert.match(
    run.stdout,
    new RegExp(
      `dry-leaf \\[3\\.11/manylinux_2_17_x86_64\\]: 3\\.0: its core metadata could not be read: ${leaf.filename.replace(/\./g, '\\.')}: sha256 is [0-9a-f]{64}, the index advertised ${leaf.sha256}`,
    ),
  );
  assert.deepEqual(run.tmp, []);
});

test('a dry run against an upstream with .metadata files reads them without keeping them', async () => {
  upstream.configure({ coreMetadata: true });
  try {
    const run = await dryRun();
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /dry run: no file stored; 6 files planned/);
    assert.match(run.stdout, /read from the upstream, nothing kept \(.+ received\): 3 \.metadata files$/m);
    assert.ok(
      fileRequests().every((r) => r.path.endsWith('.metadata')),
      'no wheel is fetched',
    );
    assert.match(run.stats, /^cached files {4}0 /m, run.stats);
  } finally {
    upstream.configure({ coreMetadata: false });
  }
});

test('with ranges, a range answered short is a problem for that wheel, and nothing is kept', async () => {
  upstream.configure({ ranges: true });
  await upstream.setFault({ kind: 'truncate', framing: 'close', pathPrefix: new URL(upstream.fileUrl(leaf)).pathname });
  try {
    const run = await dryRun();
    assert.equal(run.code, 1, run.stdout);
    assert.match(
      run.stdout,
      new RegExp(`dry-leaf \\[3\\.11/manylinux_2_17_x86_64\\]: 3\\.0: its core metadata could not be read: ${leaf.filename.replace(/\./g, '\\.')}: `),
    );
    assert.match(run.stats, /^cached files {4}0 /m, run.stats);
  } finally {
    upstream.configure({ ranges: false });
  }
});
