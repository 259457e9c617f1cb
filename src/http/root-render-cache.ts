/**
 * The rendered root page (`/simple/`), kept as a file per format and version: rendering 600,000 names
 * takes a while, sending a file does not. Written to a temporary name and renamed, so a reader never
 * sees half a page; older versions are removed once a newer one is in place.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export class RootRenderCache {
  private readonly inflight = new Map<string, Promise<{ path: string; size: number }>>();

  constructor(private readonly dir: string) {}

  async file(version: string, extension: string, render: () => AsyncIterable<string>): Promise<{ path: string; size: number }> {
    const name = `root-${createHash('sha256').update(version).digest('hex').slice(0, 24)}.${extension}`;
    const path = join(this.dir, name);
    const known = await stat(path).catch(() => null);
    if (known) return { path, size: known.size };
    let pending = this.inflight.get(path);
    if (!pending) {
      pending = this.write(path, extension, render).finally(() => this.inflight.delete(path));
      this.inflight.set(path, pending);
    }
    return pending;
  }

  private async write(path: string, extension: string, render: () => AsyncIterable<string>) {
    await mkdir(this.dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    const handle = await open(tmp, 'w');
    let size = 0;
    try {
      let pending = '';
      for await (const chunk of render()) {
        pending += chunk;
        if (pending.length >= 1 << 16) {
          size += (await handle.write(pending)).bytesWritten;
          pending = '';
        }
      }
      size += (await handle.write(pending)).bytesWritten;
    } catch (err) {
      await handle.close();
      await unlink(tmp).catch(() => {});
      throw err;
    }
    await handle.close();
    await rename(tmp, path);
    for (const old of await readdir(this.dir)) {
      if (old.startsWith('root-') && old.endsWith(`.${extension}`) && join(this.dir, old) !== path) {
        await unlink(join(this.dir, old)).catch(() => {});
      }
    }
    return { path, size };
  }
}
