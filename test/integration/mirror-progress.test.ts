/**
 * What `larder mirror add` prints while it fills an empty data directory, run as a real process whose
 * standard error is a pipe (a CI log): plain progress lines, no carriage returns, every byte fetched
 * counted (the wheels the closure downloads to read their METADATA included), a total only once the
 * plan is known and never a total of nothing, and a summary that says what was fetched and what was
 * cached already.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { formatBytes } from '../../src/base/units.js';
import { cleanEnv, runCommand, type CommandResult } from '../fixtures/clients.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream, type FakeUpstreamOptions } from '../fixtures/fake-upstream.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(REPO, 'src', 'main.ts');

let dir: string;
let wheels: BuiltDist[];
let requirements: string;
const upstreams: FakeUpstream[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-mirror-progress-'));
  const names = ['prog-a', 'prog-b', 'prog-c'];
  wheels = [];
  for (const [i, name] of names.entries()) {
    const requiresDist = names[i + 1] ? [names[i + 1]!] : [];
    wheels.push(await buildWheel(join(dir, name), { name, version: '1.0', requiresDist, dataFile: { bytes: 300_000, seed: name } }));
  }
  requirements = join(dir, 'requirements.txt');
  await writeFile(requirements, 'prog-a\n');
});

after(async () => {
  await Promise.all(upstreams.map((u) => u.close()));
  await rm(dir, { recursive: true, force: true });
});

async function upstreamWith(options: FakeUpstreamOptions): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream(options);
  upstreams.push(upstream);
  for (const w of wheels) upstream.addProject(w.name, [w]);
  return upstream;
}

/** `larder mirror …` as a child process, every progress line printed (an interval of 0). */
function mirror(args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
  const clean = cleanEnv();
  for (const key of Object.keys(clean)) if (key.startsWith('LARDER_')) delete clean[key];
  return runCommand(process.execPath, ['--import', 'tsx', MAIN, 'mirror', ...args, '--progress-interval', '0s'], {
    cwd: REPO,
    env: { ...clean, ...env },
    timeoutMs: 60_000,
  });
}

const show = (r: CommandResult) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
const progressLines = (r: CommandResult) => r.stderr.split('\n').filter((l) => l.startsWith('mirror site'));

/** The checks every run shares: plain lines only, no total of nothing, no total before there is one to give. */
function assertPlainProgress(run: CommandResult): string[] {
  assert.equal(run.code, 0, show(run));
  assert.ok(!run.stderr.includes('\r'), `no carriage return in a log:\n${JSON.stringify(run.stderr)}`);
  const lines = progressLines(run);
  assert.ok(lines.length > 0, show(run));
  for (const line of lines) {
    assert.doesNotMatch(line, /\b0\/0 files|of 0 B\b/, line);
    assert.match(line, /^mirror site: \d+(\/\d+)? files, /, line);
  }
  return lines;
}

/** `mirror add` on an empty data directory; `sync` runs `mirror sync` there afterwards. */
async function addToEmpty(options: FakeUpstreamOptions): Promise<{ add: CommandResult; sync: () => Promise<CommandResult> }> {
  const upstream = await upstreamWith(options);
  const env = { LARDER_UPSTREAM: upstream.url, LARDER_DATA: join(dir, `data-${upstreams.length}`) };
  const add = await mirror(['add', 'site', '-r', requirements, '--python', '3.11', '--platform', 'manylinux_2_17_x86_64'], env);
  return { add, sync: () => mirror(['sync', 'site'], env) };
}

test('no .metadata upstream: the wheels fetched while resolving are counted, the total follows the plan', async () => {
  const { add, sync: again } = await addToEmpty({ coreMetadata: false });
  const total = formatBytes(wheels.reduce((n, w) => n + w.size, 0));
  assert.match(add.stdout, new RegExp(`^mirror site: fetched 3 files \\(${total}\\), 0 were cached already$`, 'm'), show(add));
  const lines = assertPlainProgress(add);
  assert.match(lines[0]!, /^mirror site: 0 files, \d/, 'while resolving there is no total yet');
  assert.match(lines.at(-1)!, new RegExp(`^mirror site: 3/3 files, ${total} of ${total}, .*, done in `), lines.at(-1));

  const sync = await again();
  assert.match(sync.stdout, /^mirror site: fetched 0 files \(0 B\), 3 were cached already$/m, show(sync));
  assert.match(assertPlainProgress(sync).at(-1)!, /^mirror site: 0 files, 0 B, .*done in /);
});

test('with .metadata files: those fetched while resolving are files fetched too', async () => {
  const { add } = await addToEmpty({ coreMetadata: true });
  const total = formatBytes(wheels.reduce((n, w) => n + w.size + w.metadata.length, 0));
  assert.match(add.stdout, new RegExp(`^mirror site: fetched 6 files \\(${total}\\), 0 were cached already$`, 'm'), show(add));
  assert.match(assertPlainProgress(add).at(-1)!, new RegExp(`^mirror site: 6/6 files, ${total} of ${total}, .*, done in `));
});

test('an index that lists no sizes: bytes are counted without a byte total', async () => {
  const { add } = await addToEmpty({ coreMetadata: true, htmlOnly: true, fileHashes: false });
  const total = formatBytes(wheels.reduce((n, w) => n + w.size + w.metadata.length, 0));
  assert.match(add.stdout, new RegExp(`^mirror site: fetched 6 files \\(${total}\\), 0 were cached already$`, 'm'), show(add));
  const lines = assertPlainProgress(add);
  for (const line of lines) assert.doesNotMatch(line, / of /, line);
  assert.match(lines.at(-1)!, new RegExp(`^mirror site: 6/6 files, ${total}, .*, done in `));
});
