/**
 * Fetches the files of a mirror plan that are not cached yet, through the cached source (verified and
 * stored as when pip asks larder), a bounded number at a time. What is cached already is skipped, so a
 * run that stopped half-way resumes where it was.
 */
import type { CachedSource } from '../sources/cached-source.js';
import type { ProjectName } from '../model/names.js';
import type { Storage } from '../store/storage.js';
import type { MirrorSetFile } from '../store/mirror-set-store.js';

export interface FetchProgress {
  setTotals(totals: { files?: number; bytes?: number }): void;
  add(files: number, bytes: number): void;
}

export interface FetchResult {
  fetched: number;
  present: number;
  bytes: number;
  failures: { file: MirrorSetFile; reason: string }[];
}

export const isCached = async (storage: Pick<Storage, 'cachedFiles' | 'blobs'>, f: MirrorSetFile): Promise<boolean> => {
  const record = await storage.cachedFiles.get({ project: f.project, filename: f.filename, variant: f.variant });
  return record !== undefined && storage.blobs.hasSync(record.sha256);
};

/** The files not cached, of `files` (looked up together). */
export async function notCached(storage: Pick<Storage, 'cachedFiles' | 'blobs'>, files: readonly MirrorSetFile[]): Promise<MirrorSetFile[]> {
  const cached = await Promise.all(files.map((f) => isCached(storage, f)));
  return files.filter((_, i) => !cached[i]);
}

export async function fetchMissing(
  files: readonly MirrorSetFile[],
  cache: Pick<CachedSource, 'openFile' | 'files'>,
  storage: Pick<Storage, 'cachedFiles' | 'blobs'>,
  options: { jobs: number; progress?: FetchProgress },
): Promise<FetchResult> {
  const result: FetchResult = { fetched: 0, present: 0, bytes: 0, failures: [] };
  const missing = await notCached(storage, files);
  result.present = files.length - missing.length;
  // A byte total only when the index listed the size of every distribution file; a `.metadata` (never
  // listed, a few kB) adds its size once it is in.
  let totalBytes = missing.every((f) => f.size !== null || f.variant !== 'file') ? missing.reduce((n, f) => n + (f.size ?? 0), 0) : undefined;
  options.progress?.setTotals({ files: missing.length, bytes: totalBytes });
  let next = 0;
  const worker = async () => {
    while (next < missing.length) {
      const file = missing[next++]!;
      try {
        const { value: body } = await cache.openFile(file.project as ProjectName, file.filename, file.variant);
        if (!body) throw new Error('the index no longer lists it');
        if (body.kind === 'stream') {
          const { stream } = await body.open();
          let size = 0;
          for await (const chunk of stream) {
            size += (chunk as Buffer).length;
            options.progress?.add(0, (chunk as Buffer).length);
          }
          result.bytes += size;
          result.fetched += 1;
          if (file.size === null && totalBytes !== undefined) {
            totalBytes += size;
            options.progress?.setTotals({ bytes: totalBytes });
          }
        } else {
          // Stored meanwhile (the same bytes under another name, another node's download).
          result.present += 1;
        }
        options.progress?.add(1, 0);
      } catch (err) {
        result.failures.push({ file, reason: `upstream error: ${(err as Error).message}` });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.jobs) }, worker));
  await cache.files.drain();
  // A download that ended but could not be kept (a full disk, a failed write) is missing still.
  for (const file of await notCached(storage, missing)) {
    if (!result.failures.some((f) => f.file === file)) result.failures.push({ file, reason: 'fetched but not kept (disk full or store failure?)' });
  }
  return result;
}
