/**
 * Step 1 of `larder migrate`: copies the blobs the source's records reference into the target blob store,
 * each through a temporary file that is hashed on the way and committed only when its sha256 matches its
 * name. A blob the target already holds with the right size is skipped, so an interrupted run resumes.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { link, rm, utimes } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { blobsOfFile } from '../store/blob-references.js';
import type { BlobStore } from '../store/blob-store.js';
import type { CachedFileIndex } from '../store/cached-file-index.js';
import type { IndexReads } from '../store/index-store.js';
import type { Progress } from './progress.js';

/** A blob to migrate: `size` is what a record says it holds (null when no record says), `private` when a private record needs it. */
export interface WantedBlob {
  sha256: string;
  size: number | null;
  private: boolean;
}

export interface BlobCounts {
  copied: number;
  copiedBytes: number;
  alreadyThere: number;
  alreadyThereBytes: number;
  /** Blobs whose bytes do not match their name, or that could not be read or written. */
  failed: number;
}

const CONCURRENCY = 4;

/** Every blob the private records and the cached upstream file records reference. */
export async function wantedBlobs(index: IndexReads, cachedFiles: CachedFileIndex): Promise<WantedBlob[]> {
  const wanted = new Map<string, WantedBlob>();
  const want = (sha256: string, size: number | null, isPrivate: boolean) => {
    const known = wanted.get(sha256);
    if (known) {
      known.private ||= isPrivate;
      known.size ??= size;
    } else wanted.set(sha256, { sha256, size, private: isPrivate });
  };
  for await (const f of index.allFiles()) for (const blob of blobsOfFile(f)) want(blob.sha256, blob.size, true);
  for await (const { record } of cachedFiles.entries()) want(record.sha256, record.size, false);
  return [...wanted.values()];
}

/** Runs `work` on every item, at most `limit` at once. */
export async function eachBounded<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Puts the source blob into the temporary file `tmp` (a hard link when both are on one filesystem, else a
 * copy) and returns the sha256 and size of what `tmp` holds.
 */
async function fillTmp(source: BlobStore, sha256: string, tmp: string, progress: Progress | undefined): Promise<{ digest: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  const count = (chunk: Buffer) => {
    hash.update(chunk);
    size += chunk.length;
    progress?.add(0, chunk.length);
  };
  const local = source.localPath(sha256);
  const linked =
    local !== null &&
    (await link(local, tmp).then(
      () => true,
      () => false,
    ));
  if (linked) {
    // Young, so the target's garbage collection spares it until its record exists.
    const now = new Date();
    await utimes(tmp, now, now);
    for await (const chunk of createReadStream(tmp)) count(chunk as Buffer);
  } else {
    const input: Readable = local !== null ? createReadStream(local) : await source.read(sha256);
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        count(chunk);
        done(null, chunk);
      },
    });
    await pipeline(input, hashing, createWriteStream(tmp, { flags: 'wx' }));
  }
  return { digest: hash.digest('hex'), size };
}

/** Blobs the source has, with the size each must have (what its record says, else what the source holds); reports the missing ones. */
export async function sourceSizes(
  source: BlobStore,
  wanted: WantedBlob[],
  report: (line: string) => void,
): Promise<{ sizes: Map<string, number>; missingPrivate: number; missingCached: number }> {
  const sizes = new Map<string, number>();
  let missingPrivate = 0;
  let missingCached = 0;
  await eachBounded(wanted, CONCURRENCY * 4, async (blob) => {
    const size = await source.size(blob.sha256);
    if (size !== null) sizes.set(blob.sha256, blob.size ?? size);
    else if (blob.private) {
      missingPrivate++;
      report(`missing: blob ${blob.sha256} is referenced by a private file but is not in the source`);
    } else {
      missingCached++;
      report(`skipped: cached upstream blob ${blob.sha256} is not in the source (it is downloaded again when asked for)`);
    }
  });
  return { sizes, missingPrivate, missingCached };
}

/** Copies every blob of `sizes` the target lacks; reports each one that cannot be copied. */
export async function migrateBlobs(
  source: BlobStore,
  target: BlobStore,
  sizes: Map<string, number>,
  report: (line: string) => void,
  progress?: Progress,
): Promise<BlobCounts> {
  const counts: BlobCounts = { copied: 0, copiedBytes: 0, alreadyThere: 0, alreadyThereBytes: 0, failed: 0 };
  await target.init();
  const toCopy: [string, number][] = [];
  await eachBounded([...sizes], CONCURRENCY * 4, async ([sha, size]) => {
    if ((await target.size(sha)) === size) {
      counts.alreadyThere++;
      counts.alreadyThereBytes += size;
    } else toCopy.push([sha, size]);
  });
  progress?.setTotals({ files: toCopy.length, bytes: toCopy.reduce((sum, [, size]) => sum + size, 0) });
  await eachBounded(toCopy, CONCURRENCY, async ([sha, expected]) => {
    const tmp = target.tmpPath('migrate');
    try {
      const { digest, size } = await fillTmp(source, sha, tmp, progress);
      if (digest !== sha || size !== expected) {
        counts.failed++;
        report(`refused: blob ${sha} in the source holds other bytes (sha256 ${digest}, ${size} bytes); not copied`);
        return;
      }
      await target.commit(tmp, sha);
      counts.copied++;
      counts.copiedBytes += size;
      progress?.add(1, 0);
    } catch (err) {
      counts.failed++;
      report(`failed: blob ${sha}: ${(err as Error).message}`);
    } finally {
      await rm(tmp, { force: true });
    }
  });
  return counts;
}
