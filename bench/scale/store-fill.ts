/**
 * Fills a larder data directory with many cached upstream files, in-process through the storage API:
 * one cached-file record per file and its blob, plus a few orphan blobs (old enough for `larder gc` to
 * delete). Used by the scale section's store figures; filling is incremental (file `from` to `to`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { openStorage } from '../../src/store/local/open-storage.js';

export interface StoredFile {
  project: string;
  filename: string;
  sha256: string;
  size: number;
}

export interface FillOptions {
  /** Bytes of each blob (random content). */
  blobBytes: number;
  /** One orphan blob (no record, mtime two hours back) per this many files. */
  orphanEvery: number;
  /** Projects the files are spread over. */
  projects: number;
  /** Epoch ms the records say the files were fetched and last served. */
  fetchedAt: number;
}

export interface FillResult {
  files: StoredFile[];
  orphans: number;
  ms: number;
}

/** Files are named so that larder's routes accept them: project `scale-store-N`, wheel `scale_store_N-<i>.0-py3-none-any.whl`. */
export function storedFileName(i: number, projects: number): { project: string; filename: string } {
  const p = i % projects;
  return { project: `scale-store-${p}`, filename: `scale_store_${p}-${i}.0-py3-none-any.whl` };
}

const BATCH = 2000;
const PARALLEL_WRITES = 64;

export async function fillStore(dataDir: string, from: number, to: number, options: FillOptions): Promise<FillResult> {
  const t0 = performance.now();
  const storage = openStorage(dataDir);
  const files: StoredFile[] = [];
  let orphans = 0;
  const old = new Date(options.fetchedAt - 2 * 3600_000);
  try {
    await storage.blobs.init();
    for (let start = from; start < to; start += BATCH) {
      const end = Math.min(to, start + BATCH);
      const blobs: { sha256: string; bytes: Buffer; orphan: boolean }[] = [];
      const records: Promise<void>[] = [];
      for (let i = start; i < end; i++) {
        const bytes = randomBytes(options.blobBytes);
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        const name = storedFileName(i, options.projects);
        const file = { ...name, sha256, size: bytes.length };
        files.push(file);
        blobs.push({ sha256, bytes, orphan: false });
        const at = options.fetchedAt;
        records.push(storage.cachedFiles.put({ ...name, variant: 'file' }, { sha256, size: bytes.length, fetchedAt: at, lastAccess: at }));
        if ((i + 1) % options.orphanEvery === 0) {
          const orphan = randomBytes(options.blobBytes);
          blobs.push({ sha256: createHash('sha256').update(orphan).digest('hex'), bytes: orphan, orphan: true });
          orphans++;
        }
      }
      // The layout commit() leaves (blobs/sha256/ab/cd/<sha256>), without its two fsyncs per blob.
      for (let k = 0; k < blobs.length; k += PARALLEL_WRITES) {
        await Promise.all(
          blobs.slice(k, k + PARALLEL_WRITES).map(async (b) => {
            const path = storage.blobs.localPath(b.sha256)!;
            await mkdir(dirname(path), { recursive: true });
            await writeFile(path, b.bytes);
            if (b.orphan) await utimes(path, old, old);
          }),
        );
      }
      await Promise.all(records);
    }
  } finally {
    await storage.close();
  }
  return { files, orphans, ms: performance.now() - t0 };
}
