/**
 * One sync of a mirror set: re-read its inputs, compute the closure for its targets, record the files it
 * needs (which pins them in the cache), fetch what is missing, and record how it ended. A dry run stops
 * after the plan (it reads pages and `.metadata` files, never distribution files).
 */
import type { Clock } from '../base/clock.js';
import type { MirrorSetFile, MirrorSetRecord } from '../store/mirror-set-store.js';
import type { Storage } from '../store/storage.js';
import { computeClosure, type Problem } from './closure.js';
import { fetchMissing, type FetchProgress } from './fetch.js';
import { readInputs } from './inputs/read-inputs.js';
import type { MirrorSource } from './mirror-source.js';
import { planFiles } from './plan.js';
import { SourceIndex } from './source-index.js';
import { targetLabel, type Target } from './target.js';

export interface SyncOutcome {
  record: MirrorSetRecord;
  files: MirrorSetFile[];
  /** One line each: what could not be satisfied, and why. */
  problems: string[];
  /** Inputs lines that were skipped (URLs, editables, ignored options). */
  skipped: string[];
  fetched: number;
  present: number;
  bytes: number;
}

export const targetsOf = (set: Pick<MirrorSetRecord, 'pythons' | 'platforms'>): Target[] =>
  set.pythons.flatMap((python) => set.platforms.map((platform) => ({ python, platform })));

const problemLine = (p: Problem) => `${p.project}${p.target ? ` [${p.target}]` : ''}: ${p.reason}`;

export async function syncMirrorSet(
  set: MirrorSetRecord,
  storage: Storage,
  source: MirrorSource,
  options: { dryRun: boolean; jobs: number; progress?: FetchProgress; clock: Clock },
): Promise<SyncOutcome> {
  const inputs = readInputs(set.requirements, set.locks);
  const index = new SourceIndex(source.cache, { fetchWheels: !options.dryRun, settle: () => source.cache.files.drain() });
  const targets = targetsOf(set);
  const closure = await computeClosure(index, inputs, { targets, sdists: set.sdists, versions: set.versions });
  const files = planFiles(closure);
  const problems = closure.problems.map(problemLine);
  const outcome: SyncOutcome = { record: set, files, problems, skipped: [...inputs.skipped, ...closure.skipped], fetched: 0, present: 0, bytes: 0 };
  if (options.dryRun) return outcome;
  // Recorded before the downloads, so that the size bound never evicts this set's files while it fills.
  const pinned: MirrorSetRecord = { ...set, files, problems, complete: false };
  await storage.mirrorSets.put(pinned);
  const fetched = await fetchMissing(files, source.cache, storage, { jobs: options.jobs, progress: options.progress });
  for (const f of fetched.failures) problems.push(`${f.file.project}: ${f.file.filename}${f.file.variant === 'metadata' ? '.metadata' : ''}: ${f.reason}`);
  // Sizes the index did not list (HTML pages without PEP 700, `.metadata`) are known once the files are cached.
  const sized = files.map((f) =>
    f.size === null ? { ...f, size: storage.cachedFiles.get({ project: f.project, filename: f.filename, variant: f.variant })?.size ?? null } : f,
  );
  const record: MirrorSetRecord = { ...pinned, files: sized, problems, complete: problems.length === 0, lastSync: new Date(options.clock.now()).toISOString() };
  await storage.mirrorSets.put(record);
  return { ...outcome, files: sized, record, fetched: fetched.fetched, present: fetched.present, bytes: fetched.bytes };
}

export { targetLabel };
