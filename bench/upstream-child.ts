/**
 * The bench's upstream, in its own process (started by bench/run.ts with an IPC channel): builds the
 * fixture distributions under BENCH_FIXTURES, starts the test suite's fake upstream with a 600,000-project
 * root, and reports what it serves. Stops on SIGTERM, on a `close` message, or when its parent goes away.
 */
import { link, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { buildSdist, buildWheel, type BuiltDist } from '../test/fixtures/dists.js';
import { startFakeUpstream } from '../test/fixtures/fake-upstream.js';
import { filePath } from '../test/fixtures/upstream/render.js';
import { addScaleFixtures, type ScaleFixtures } from './scale/fixtures.js';
import type { FileInfo } from './lib/file-info.js';

export type { FileInfo };

export interface UpstreamReady {
  type: 'ready';
  pid: number;
  url: string;
  origin: string;
  /** Where the upstream's pages point file URLs (nginx in the bench). */
  fileOrigin: string;
  /** The realistic project: 25 versions, a wheel and an sdist each. */
  page: string;
  /** Never-requested projects of the same shape, for cold first requests. */
  coldJson: string[];
  coldHtml: string[];
  /** Same shape, requested (unmeasured) before the cold figures so the miss path is not JIT-cold. */
  coldWarmup: string[];
  /** Distinct 200 MB wheels, one project each (one per first-download sample). */
  big: FileInfo[];
  small: FileInfo;
  rootProjects: number;
  buildMs: number;
  /** The `scale` section's fixtures (bench/scale/fixtures.ts), when BENCH_ONLY names it. */
  scale: ScaleFixtures | null;
}

const dir = process.env.BENCH_FIXTURES;
if (!dir) throw new Error('BENCH_FIXTURES is not set');
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const versions = num('BENCH_PAGE_VERSIONS', 25);
const coldCount = num('BENCH_COLD_N', 20);
const coldWarmupCount = num('BENCH_COLD_WARMUP', 10);
const bigCount = num('BENCH_BIG_N', 5);
const bigBytes = num('BENCH_BIG_BYTES', 200_000_000);
const rootProjects = num('BENCH_ROOT_PROJECTS', 600_000);
/** Files are served by this origin (nginx), from BENCH_FILE_ROOT, as pypi.org serves them from files.pythonhosted.org. */
const fileOrigin = process.env.BENCH_FILE_ORIGIN ?? null;
const fileRoot = process.env.BENCH_FILE_ROOT ?? null;

const t0 = performance.now();

/** A project like a real one: `versions` releases, each with a pure wheel and an sdist (2 files a release). */
async function realisticProject(name: string): Promise<BuiltDist[]> {
  const dists: BuiltDist[] = [];
  for (let i = 0; i < versions; i++) {
    const spec = {
      name,
      version: `${1 + Math.floor(i / 10)}.${i % 10}.0`,
      requiresPython: '>=3.8',
      summary: `Benchmark project ${name}`,
      requiresDist: ['idna>=2.5', 'urllib3<3,>=1.21.1', 'certifi>=2017.4.17'],
    };
    dists.push(await buildWheel(`${dir}/${name}`, spec));
    dists.push(await buildSdist(`${dir}/${name}`, spec));
  }
  return dists;
}

const info = (project: string, d: BuiltDist): FileInfo => ({ project, filename: d.filename, path: d.path, size: d.size, sha256: d.sha256 });

const upstream = await startFakeUpstream({ rootProjects, fileOrigin });

/** Adds a project and puts its files (and wheels' `.metadata`) where the file origin serves them. */
async function addProject(name: string, dists: BuiltDist[]): Promise<void> {
  upstream.addProject(name, dists);
  if (!fileRoot) return;
  for (const d of dists) {
    const target = join(fileRoot, decodeURIComponent(filePath(d)));
    await mkdir(dirname(target), { recursive: true });
    await link(d.path, target);
    if (d.kind === 'wheel') await writeFile(`${target}.metadata`, d.metadata);
  }
}

const page = 'benchproj';
await addProject(page, await realisticProject(page));
const coldJson: string[] = [];
const coldHtml: string[] = [];
for (let i = 1; i <= coldCount; i++) {
  for (const [list, kind] of [
    [coldJson, 'json'],
    [coldHtml, 'html'],
  ] as const) {
    const name = `cold-${kind}-${i}`;
    await addProject(name, await realisticProject(name));
    list.push(name);
  }
}
const coldWarmup: string[] = [];
for (let i = 1; i <= coldWarmupCount; i++) {
  const name = `cold-warmup-${i}`;
  await addProject(name, await realisticProject(name));
  coldWarmup.push(name);
}
const smallDist = await buildWheel(`${dir}/smallwheel`, { name: 'smallwheel', version: '1.0', dataFile: { bytes: 10_000, seed: 'small' } });
await addProject('smallwheel', [smallDist]);
const big: FileInfo[] = [];
for (let i = 1; i <= bigCount; i++) {
  const name = `bigwheel-${i}`;
  const dist = await buildWheel(`${dir}/${name}`, { name, version: '1.0', dataFile: { bytes: bigBytes, seed: `big-${i}` } });
  await addProject(name, [dist]);
  big.push(info(name, dist));
}
const scale = await addScaleFixtures(upstream, `${dir}/scale`, process.env, addProject);

const ready: UpstreamReady = {
  type: 'ready',
  pid: process.pid,
  url: upstream.url,
  origin: upstream.origin,
  fileOrigin: fileOrigin ?? upstream.origin,
  page,
  coldJson,
  coldHtml,
  coldWarmup,
  big,
  small: info('smallwheel', smallDist),
  rootProjects,
  buildMs: performance.now() - t0,
  scale,
};

let closing = false;
async function close(): Promise<void> {
  if (closing) return;
  closing = true;
  await upstream.close();
  process.exit(0);
}
process.on('SIGTERM', () => void close());
process.on('disconnect', () => void close());
process.on('message', (m) => {
  if (m === 'close') void close();
  // The request log would otherwise grow for the whole run.
  if (m === 'clear-log') upstream.clearLog();
});
process.send!(ready);
