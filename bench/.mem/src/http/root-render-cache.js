/**
 * The rendered root page (`/simple/`), kept as files per format and version, plain and gzip-compressed:
 * rendering 600,000 names takes a while and compressing them too, sending a file does not. Both forms are
 * made in one pass, written to temporary names and renamed, so a reader never sees half a page; older
 * versions are removed once a newer one is in place.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { diskFullError } from '../store/disk-space.js';
const FLUSH_AT = 1 << 16;
export class RootRenderCache {
    dir;
    space;
    inflight = new Map();
    constructor(dir, space) {
        this.dir = dir;
        this.space = space;
    }
    async files(version, extension, render) {
        const name = `root-${createHash('sha256').update(version).digest('hex').slice(0, 24)}.${extension}`;
        const path = join(this.dir, name);
        const known = await this.stored(path);
        if (known)
            return known;
        let pending = this.inflight.get(path);
        if (!pending) {
            pending = this.write(path, extension, render).finally(() => this.inflight.delete(path));
            this.inflight.set(path, pending);
        }
        return pending;
    }
    async stored(path) {
        const [plain, gzip] = await Promise.all([stat(path).catch(() => null), stat(`${path}.gz`).catch(() => null)]);
        return plain && gzip ? { plain: { path, size: plain.size }, gzip: { path: `${path}.gz`, size: gzip.size } } : null;
    }
    /** A write that first claims its bytes, unless that would eat into the disk's reserve (then ENOSPC: send it unkept). */
    async claim(bytes) {
        if (!(await this.space.claim(bytes)))
            throw diskFullError('the data disk is below its reserve (LARDER_DISK_RESERVE)');
    }
    async append(handle, text) {
        await this.claim(Buffer.byteLength(text));
        return (await handle.write(text)).bytesWritten;
    }
    claimed() {
        return new Transform({
            transform: (chunk, _encoding, done) => {
                this.claim(chunk.length).then(() => done(null, chunk), done);
            },
        });
    }
    async write(path, extension, render) {
        await mkdir(this.dir, { recursive: true });
        const tmp = `${path}.${process.pid}.tmp`;
        const gzTmp = `${path}.gz.${process.pid}.tmp`;
        const handle = await open(tmp, 'w');
        const gzip = createGzip({ level: 6 });
        const gzWritten = pipeline(gzip, this.claimed(), createWriteStream(gzTmp));
        gzWritten.catch(() => { }); // awaited below; this only keeps an early failure from counting as unhandled
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
        }
        catch (err) {
            gzip.destroy();
            await gzWritten.catch(() => { });
            await handle.close();
            await Promise.all([unlink(tmp).catch(() => { }), unlink(gzTmp).catch(() => { })]);
            throw err;
        }
        await handle.close();
        await rename(gzTmp, `${path}.gz`);
        await rename(tmp, path);
        const gzSize = (await stat(`${path}.gz`)).size;
        for (const old of await readdir(this.dir)) {
            const oldPath = join(this.dir, old);
            const current = oldPath === path || oldPath === `${path}.gz`;
            if (!current && old.startsWith('root-') && (old.endsWith(`.${extension}`) || old.endsWith(`.${extension}.gz`))) {
                await unlink(oldPath).catch(() => { });
            }
        }
        return { plain: { path, size }, gzip: { path: `${path}.gz`, size: gzSize } };
    }
}
/** Writes to a stream, waiting for it to drain when its buffer is full. */
function feed(stream, text) {
    return new Promise((resolve, reject) => {
        if (stream.destroyed)
            return reject(new Error('the compressor was closed'));
        if (stream.write(text))
            return resolve();
        const settle = (err) => {
            stream.off('error', settle).off('close', closed).off('drain', drained);
            if (err)
                reject(err);
            else
                resolve();
        };
        const closed = () => settle(new Error('the compressor was closed'));
        const drained = () => settle();
        stream.on('error', settle).on('close', closed).on('drain', drained);
    });
}
