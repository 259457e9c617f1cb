/**
 * The blob store on the local filesystem: blobs/sha256/ab/cd/<sha256>. A blob is written to tmp/, fsynced
 * and renamed into place, so a blob path either does not exist or holds the whole, verified content.
 */
import { constants, existsSync } from 'node:fs';
import { access, mkdir, open, readdir, rename, rm, stat, unlink, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobStore } from '../blob-store.js';
import { dataLayout } from '../data-layout.js';
import { freshTmpPath, purgeTmpDir } from '../tmp-dir.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** How long a blob seen on disk is taken to be there without another stat (a blob removed behind larder's back is noticed this late). */
const SEEN_FOR_MS = 1000;
const SEEN_MAX = 10_000;

export class FileBlobStore implements BlobStore {
  readonly blobsDir: string;
  readonly tmpDir: string;
  readonly parts = null;
  /** sha256 → when it was last seen on disk (monotonic ms), so a hot file is not stat'ed per request. */
  private readonly seen = new Map<string, number>();

  constructor(
    dataDir: string,
    private readonly monotonicMs: () => number = () => performance.now(),
  ) {
    const layout = dataLayout(dataDir);
    this.blobsDir = layout.blobs;
    this.tmpDir = layout.tmp;
  }

  async init(): Promise<void> {
    await mkdir(this.blobsDir, { recursive: true });
    await mkdir(this.tmpDir, { recursive: true });
  }

  purgeTmp(olderThanMs?: number): Promise<number> {
    return purgeTmpDir(this.tmpDir, olderThanMs);
  }

  pathFor(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256 hex digest: ${sha256}`);
    return `${this.blobsDir}/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
  }

  /** A fresh path in tmp/ for an in-flight write. */
  tmpPath(prefix = 'blob'): string {
    return freshTmpPath(this.tmpDir, prefix);
  }

  async has(sha256: string): Promise<boolean> {
    try {
      await access(this.pathFor(sha256), constants.R_OK);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Synchronous `has` for the hot path of serving cached files: a stat of a cached directory entry costs
   * far less than a round trip through the thread pool.
   */
  hasSync(sha256: string): boolean {
    const now = this.monotonicMs();
    const seenAt = this.seen.get(sha256);
    if (seenAt !== undefined && now - seenAt < SEEN_FOR_MS) return true;
    const there = existsSync(this.pathFor(sha256));
    if (!there) this.seen.delete(sha256);
    else {
      if (this.seen.size >= SEEN_MAX) this.seen.clear();
      this.seen.set(sha256, now);
    }
    return there;
  }

  async size(sha256: string): Promise<number | null> {
    try {
      return (await stat(this.pathFor(sha256))).size;
    } catch {
      return null;
    }
  }

  async modifiedAt(sha256: string): Promise<number | null> {
    return stat(this.pathFor(sha256)).then(
      (info) => info.mtimeMs,
      () => null,
    );
  }

  /**
   * Makes the finished temporary file `tmpPath` (whose sha256 the caller has verified) the blob `sha256`:
   * fsync, rename, fsync the directory. If the blob already exists the temporary file is dropped.
   */
  /** A rename is instant: nothing to begin early. */
  beginCommit(): null {
    return null;
  }

  async commit(tmpPath: string, sha256: string): Promise<void> {
    const target = this.pathFor(sha256);
    if (await this.has(sha256)) {
      await unlink(tmpPath).catch(() => {});
      // A fresh mtime tells garbage collection the blob is wanted again (its record is about to be written).
      const now = new Date();
      await utimes(target, now, now).catch(() => {});
      return;
    }
    const handle = await open(tmpPath, 'r+');
    try {
      await handle.chmod(0o644);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await mkdir(dirname(target), { recursive: true });
    await rename(tmpPath, target);
    await syncDirectory(dirname(target));
  }

  /** Writes a small buffer (e.g. a `.metadata` file) as a blob. */
  async writeBuffer(bytes: Buffer, sha256: string): Promise<void> {
    const tmp = this.tmpPath('buf');
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    return this.commit(tmp, sha256);
  }

  async read(sha256: string, range?: { start: number; end: number }): Promise<Readable> {
    const handle = await open(this.pathFor(sha256), 'r');
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  localPath(sha256: string): string {
    return this.pathFor(sha256);
  }

  async directUrl(): Promise<null> {
    return null;
  }

  async ping(): Promise<void> {
    await access(this.blobsDir, constants.R_OK | constants.W_OK);
  }

  async remove(sha256: string): Promise<void> {
    this.seen.delete(sha256);
    await rm(this.pathFor(sha256), { force: true });
  }

  /** Every blob on disk, for garbage collection and statistics. */
  async *list(): AsyncIterable<{ sha256: string; size: number }> {
    for (const a of await readdir(this.blobsDir).catch(() => [] as string[])) {
      for (const b of await readdir(join(this.blobsDir, a)).catch(() => [] as string[])) {
        for (const name of await readdir(join(this.blobsDir, a, b)).catch(() => [] as string[])) {
          if (!SHA256_HEX.test(name)) continue;
          const info = await stat(join(this.blobsDir, a, b, name)).catch(() => null);
          if (info) yield { sha256: name, size: info.size };
        }
      }
    }
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
