/**
 * The scale section's fixtures on the bench's fake upstream (built in the upstream child, only when
 * BENCH_ONLY names `scale`): big projects of synthetic file entries (listed, never downloaded) and a
 * project of many distinct ~1 MB real wheels for the concurrent cold downloads.
 */
import { buildWheel, type BuiltDist } from '../../test/fixtures/dists.js';
import type { FakeUpstream } from '../../test/fixtures/fake-upstream.js';
import { syntheticReleases } from '../../test/fixtures/synthetic-dists.js';
import type { FileInfo } from '../lib/file-info.js';

export interface ScalePage {
  /** Files on each page (a wheel and an sdist per release). */
  files: number;
  /** Never-requested projects of that size, one per cold sample and format. */
  json: string[];
  html: string[];
}

export interface ScaleFixtures {
  pages: ScalePage[];
  /** The project holding the download wheels, and the wheels. */
  downloadProject: string;
  downloads: FileInfo[];
  buildMs: number;
}

const list = (value: string | undefined, fallback: number[]) => (value ? value.split(',').map((s) => Number(s.trim())) : fallback);
const BUILD_PARALLEL = 8;

/** Adds the scale fixtures when BENCH_ONLY asks for the `scale` section; null otherwise. */
export async function addScaleFixtures(
  upstream: FakeUpstream,
  dir: string,
  env: NodeJS.ProcessEnv,
  /** Adds a project of real files where the upstream's file host serves them. */
  addProject: (name: string, dists: BuiltDist[]) => Promise<void>,
): Promise<ScaleFixtures | null> {
  if (!(env.BENCH_ONLY ?? '').split(',').some((s) => s.trim() === 'scale')) return null;
  const t0 = performance.now();
  const coldReps = Number(env.BENCH_SCALE_COLD_REPS ?? 3);
  const pages: ScalePage[] = [];
  for (const files of list(env.BENCH_SCALE_FILES, [2_000, 20_000])) {
    const page: ScalePage = { files, json: [], html: [] };
    for (const kind of ['json', 'html'] as const) {
      for (let i = 1; i <= coldReps; i++) {
        const name = `scale-page-${files}-${kind}-${i}`;
        upstream.addProject(name, syntheticReleases(name, Math.ceil(files / 2)));
        page[kind].push(name);
      }
    }
    pages.push(page);
  }

  const downloadProject = 'scale-downloads';
  const count = Number(env.BENCH_SCALE_DOWNLOADS ?? 200);
  const bytes = Number(env.BENCH_SCALE_DOWNLOAD_BYTES ?? 1_000_000);
  const dists: BuiltDist[] = [];
  for (let start = 0; start < count; start += BUILD_PARALLEL) {
    const batch = Array.from({ length: Math.min(BUILD_PARALLEL, count - start) }, (_, k) =>
      buildWheel(`${dir}/${downloadProject}`, {
        name: downloadProject,
        version: `1.${start + k}.0`,
        dataFile: { bytes, seed: `scale-download-${start + k}` },
      }),
    );
    dists.push(...(await Promise.all(batch)));
  }
  await addProject(downloadProject, dists);
  const downloads = dists.map((d): FileInfo => ({ project: downloadProject, filename: d.filename, path: d.path, size: d.size, sha256: d.sha256 }));
  return { pages, downloadProject, downloads, buildMs: performance.now() - t0 };
}
