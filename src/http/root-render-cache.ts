/**
 * The rendered root page (`/simple/`), kept as files per format and version, plain and gzip-compressed:
 * rendering 600,000 names takes a while and compressing them too, sending a file does not. Both forms are
 * made in one pass, written to temporary names and renamed, so a reader never sees half a page; older
 * versions are removed once a newer one is in place. While a new version of the upstream's list is being
 * rendered, requests get the newest earlier rendering of the same format and family (kept on disk across
 * restarts, with the ETag and serial it was made for), so no request waits for 600,000 names when a previous
 * page exists. A change of private projects, policy or mode starts a new family: that is waited for.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { diskFullError, type DiskSpace } from '../store/disk-space.js';

export interface RenderedFile {
  path: string;
  size: number;
}

export interface RootFiles {
  plain: RenderedFile;
  gzip: RenderedFile;
}

/** What a rendering was made for: its ETag (identity form), the serial it lists, and its list family. */
export interface RootVersion {
  etag: string;
  serial: number;
  /** Renderings of one family differ only in the upstream's list: an earlier one may stand in for a newer. */
  family: string;
}

export interface ServedRoot extends RootVersion {
  files: RootFiles;
}

const FLUSH_AT = 1 << 16;

export class RootRenderCache {
  private readonly inflight = new Map<string, Promise<RootFiles>>();

  constructor(
    private readonly dir: string,
    private readonly space: DiskSpace,
    private readonly onBackgroundFailure: (err: Error) => void = () => {},
  ) {}

  /**
   * The rendering of `version`; while it is being made, the newest earlier rendering of this format and
   * family when there is one (the new one goes on in the background), else it is waited for.
   */
  async files(version: RootVersion, extension: string, render: () => AsyncIterable<string>): Promise<ServedRoot> {
    const name = `root-${createHash('sha256').update(version.etag).digest('hex').slice(0, 24)}.${extension}`;
    const path = join(this.dir, name);
    const known = await this.stored(path);
    if (known) return { ...version, files: known };
    let pending = this.inflight.get(path);
    if (!pending) {
      pending = this.write(path, extension, render, version).finally(() => this.inflight.delete(path));
      this.inflight.set(path, pending);
      pending.catch((err: Error) => this.onBackgroundFailure(err));
    }
    const earlier = await this.newestEarlier(extension, path, version.family);
    return earlier ?? { ...version, files: await pending };
  }

  private async stored(path: string): Promise<RootFiles | null> {
    const [plain, gzip] = await Promise.all([stat(path).catch(() => null), stat(`${path}.gz`).catch(() => null)]);
    return plain && gzip ? { plain: { path, size: plain.size }, gzip: { path: `${path}.gz`, size: gzip.size } } : null;
  }

  /** The most recent complete rendering of this format and family other than `except`, from its `.version` file. */
  private async newestEarlier(extension: string, except: string, family: string): Promise<ServedRoot | null> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    let best: (ServedRoot & { at: number }) | null = null;
    for (const name of names) {
      if (!name.startsWith('root-') || !name.endsWith(`.${extension}.version`)) continue;
      const path = join(this.dir, name.slice(0, -'.version'.length));
      if (path === except) continue;
      const [files, info, text] = await Promise.all([
        this.stored(path),
        stat(`${path}.version`).catch(() => null),
        readFile(`${path}.version`, 'utf8').catch(() => null),
      ]);
      const version = text === null ? null : parseVersion(text);
      if (!files || !info || version?.family !== family || (best && best.at >= info.mtimeMs)) continue;
      best = { ...version, files, at: info.mtimeMs };
    }
    return best && { etag: best.etag, serial: best.serial, family, files: best.files };
  }

  /** A write that first claims its bytes, unless that would eat into the disk's reserve (then ENOSPC: send it unkept). */
  private async claim(bytes: number): Promise<void> {
    if (!(await this.space.claim(bytes))) throw diskFullError('the data disk is below its reserve (LARDER_DISK_RESERVE)');
  }

  private async append(handle: FileHandle, text: string): Promise<number> {
    await this.claim(Buffer.byteLength(text));
    return (await handle.write(text)).bytesWritten;
  }

  private claimed(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        this.claim(chunk.length).then(() => done(null, chunk), done);
      },
    });
  }

  private async write(path: string, extension: string, render: () => AsyncIterable<string>, version: RootVersion): Promise<RootFiles> {
    await mkdir(this.dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    const gzTmp = `${path}.gz.${process.pid}.tmp`;
    const handle = await open(tmp, 'w');
    const gzip = createGzip({ level: 6 });
    const gzWritten = pipeline(gzip, this.claimed(), createWriteStream(gzTmp));
    gzWritten.catch(() => {}); // awaited below; this only keeps an early failure from counting as unhandled
    let size = 0;
    try {
      let pending = '';
      for await (const chunk of render()) {
        pending += chunk;
        if (pending.length >= FLUSH_AT) {
          size += await this.append(handle, pending);
          await feed(gzip, pending);
          pending = '';
        }
      }
      size += await this.append(handle, pending);
      gzip.end(pending);
      await gzWritten;
    } catch (err) {
      gzip.destroy();
      await gzWritten.catch(() => {});
      await handle.close();
      await Promise.all([unlink(tmp).catch(() => {}), unlink(gzTmp).catch(() => {})]);
      throw err;
    }
    await handle.close();
    await rename(gzTmp, `${path}.gz`);
    await rename(tmp, path);
    // Written last: a rendering is offered to later requests only once both of its files are in place.
    await writeFile(`${path}.version.${process.pid}.tmp`, JSON.stringify(version));
    await rename(`${path}.version.${process.pid}.tmp`, `${path}.version`);
    const gzSize = (await stat(`${path}.gz`)).size;
    for (const old of await readdir(this.dir)) {
      const oldPath = join(this.dir, old);
      const current = oldPath === path || oldPath === `${path}.gz` || oldPath === `${path}.version`;
      const ours = old.endsWith(`.${extension}`) || old.endsWith(`.${extension}.gz`) || old.endsWith(`.${extension}.version`);
      if (!current && old.startsWith('root-') && ours) await unlink(oldPath).catch(() => {});
    }
    return { plain: { path, size }, gzip: { path: `${path}.gz`, size: gzSize } };
  }
}

function parseVersion(text: string): RootVersion | null {
  try {
    const { etag, serial, family } = JSON.parse(text) as Partial<RootVersion>;
    return typeof etag === 'string' && typeof serial === 'number' && typeof family === 'string' ? { etag, serial, family } : null;
  } catch {
    return null;
  }
}

/** Writes to a stream, waiting for it to drain when its buffer is full. */
function feed(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stream.destroyed) return reject(new Error('the compressor was closed'));
    if (stream.write(text)) return resolve();
    const settle = (err?: Error) => {
      stream.off('error', settle).off('close', closed).off('drain', drained);
      if (err) reject(err);
      else resolve();
    };
    const closed = () => settle(new Error('the compressor was closed'));
    const drained = () => settle();
    stream.on('error', settle).on('close', closed).on('drain', drained);
  });
}
