/**
 * One sync of a mirror set: re-read its inputs, compute the closure for its targets, record the files it
 * needs (which pins them in the cache), fetch what is missing, and record how it ended. What the closure
 * fetched on its way (`.metadata` files, wheels read for their METADATA) counts as fetched. A dry run
 * stops after the plan and stores no file: what it reads that is not cached comes from the upstream and
 * is not kept (pages are cached as on any request).
 */
import type { Clock } from '../base/clock.js';
import { mirrorFileKey, type MirrorSetFile, type MirrorSetRecord } from '../store/mirror-set-store.js';
import type { Storage } from '../store/storage.js';
import { computeClosure, type Problem } from './closure.js';
import { fetchMissing, notCached, type FetchProgress } from './fetch.js';
import { readInputs } from './inputs/read-inputs.js';
import type { MirrorSource } from './mirror-source.js';
import { planFiles } from './plan.js';
import { SourceIndex, type ResolutionReads } from './source-index.js';
import { targetLabel, type Target } from './target.js';

export interface SyncOutcome {
  record: MirrorSetRecord;
  files: MirrorSetFile[];
  /** One line each: what could not be satisfied, and why. */
  problems: string[];
  /** Inputs lines that were skipped (URLs, editables, ignored options). */
  skipped: string[];
  /** Files fetched into the cache by this run (while resolving and after), and their bytes. */
  fetched: number;
  bytes: number;
  /** Files of the plan that were cached before this run. */
  present: number;
  /** What the closure read on its way (on a dry run: what it read from the upstream without keeping it). */
  reads: ResolutionReads;
}

/** The progress of the downloads after the plan, shown on top of what the closure fetched before. */
const after = (progress: FetchProgress, earlier: { files: number; bytes: number }): FetchProgress => ({
  setTotals: ({ files, bytes }) =>
    progress.setTotals({ files: files === undefined ? undefined : earlier.files + files, bytes: bytes === undefined ? undefined : earlier.bytes + bytes }),
  add: (files, bytes) => progress.add(files, bytes),
});

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
  const settle = () => source.cache.files.drain();
  const access = options.dryRun ? { kind: 'uncached' as const, reader: source.uncached } : { kind: 'cache' as const, settle };
  const index = new SourceIndex(source.cache, { access, progress: options.progress });
  const targets = targetsOf(set);
  const closure = await computeClosure(index, inputs, { targets, sdists: set.sdists, versions: set.versions });
  const files = planFiles(closure);
  const problems = closure.problems.map(problemLine);
  const { reads } = index;
  const outcome: SyncOutcome = {
    record: set,
    files,
    problems,
    skipped: [...inputs.skipped, ...closure.skipped],
    fetched: reads.cached.size,
    present: 0,
    bytes: reads.bytes,
    reads,
  };
  if (options.dryRun) return outcome;
  // Recorded before the downloads, so that the size bound never evicts this set's files while it fills.
  const pinned: MirrorSetRecord = { ...set, files, problems, complete: false };
  await storage.mirrorSets.put(pinned);
  // What the closure fetched is recorded once the cache has written it, so it is not fetched again.
  await settle();
  const readEarlier = files.filter((f) => reads.cached.has(mirrorFileKey(f.project, f.filename, f.variant)));
  const fetchedEarlier = readEarlier.length - (await notCached(storage, readEarlier)).length;
  const progress = options.progress && after(options.progress, { files: reads.cached.size, bytes: reads.bytes });
  const fetched = await fetchMissing(files, source.cache, storage, { jobs: options.jobs, progress });
  for (const f of fetched.failures) problems.push(`${f.file.project}: ${f.file.filename}${f.file.variant === 'metadata' ? '.metadata' : ''}: ${f.reason}`);
  // Sizes the index did not list (HTML pages without PEP 700, `.metadata`) are known once the files are cached.
  const sized = await Promise.all(
    files.map(async (f) =>
      f.size === null ? { ...f, size: (await storage.cachedFiles.get({ project: f.project, filename: f.filename, variant: f.variant }))?.size ?? null } : f,
    ),
  );
  const record: MirrorSetRecord = { ...pinned, files: sized, problems, complete: problems.length === 0, lastSync: new Date(options.clock.now()).toISOString() };
  await storage.mirrorSets.put(record);
  return {
    ...outcome,
    files: sized,
    record,
    fetched: reads.cached.size + fetched.fetched,
    bytes: reads.bytes + fetched.bytes,
    present: fetched.present - fetchedEarlier,
  };
}

export { targetLabel };
