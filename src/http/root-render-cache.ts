/**
 * The rendered root page (`/simple/`), kept as a file per format and version: rendering 600,000 names
 * takes a while, sending a file does not. Written to a temporary name and renamed, so a reader never
 * sees half a page; older versions are removed once a newer one is in place.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { diskFullError, type DiskSpace } from '../store/disk-space.js';

export class RootRenderCache {
  private readonly inflight = new Map<string, Promise<{ path: string; size: number }>>();

  constructor(
    private readonly dir: string,
    private readonly space: DiskSpace,
  ) {}

  /** Writes `text`, unless that would eat into the disk's reserve (then an ENOSPC error: send it unkept). */
  private async append(handle: FileHandle, text: string): Promise<number> {
    const bytes = Buffer.byteLength(text);
    if (!(await this.space.claim(bytes))) throw diskFullError('the data disk is below its reserve (LARDER_DISK_RESERVE)');
    return (await handle.write(text)).bytesWritten;
  }

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
          size += await this.append(handle, pending);
          pending = '';
        }
      }
      size += await this.append(handle, pending);
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
