/** A blob store's local directory of in-flight uploads and downloads: fresh names in it, and purging it. */
import { randomBytes } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** A fresh path in `dir` for an in-flight write. */
export function freshTmpPath(dir: string, prefix: string): string {
  return join(dir, `${prefix}-${process.pid}-${randomBytes(8).toString('hex')}`);
}

/** Removes everything in `dir`, or the entries last modified before `olderThanMs`; returns how many. */
export async function purgeTmpDir(dir: string, olderThanMs?: number): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      if (olderThanMs !== undefined) {
        const info = await stat(path).catch(() => null);
        if (!info || info.mtimeMs > olderThanMs) return;
      }
      await rm(path, { recursive: true, force: true });
      removed++;
    }),
  );
  return removed;
}
