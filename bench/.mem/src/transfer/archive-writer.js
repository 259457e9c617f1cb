/** The tar of `larder export`, streamed to a file, with the manifest of what went into it. */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import * as tar from 'tar-stream';
export class ExportError extends Error {
}
/** A tar being streamed to a file, with the manifest of what went into it. */
export class ArchiveWriter {
    pack = tar.pack();
    out;
    closed;
    failure = null;
    failed;
    entries = [];
    mtime = new Date();
    constructor(path) {
        this.out = createWriteStream(path, { flags: 'wx' });
        let fail;
        this.failed = new Promise((_, reject) => (fail = reject));
        this.failed.catch(() => { });
        const onError = (err) => {
            this.failure ??= err;
            fail(err);
        };
        this.out.on('error', onError);
        this.pack.on('error', onError);
        this.closed = new Promise((resolve, reject) => {
            this.out.on('close', () => (this.failure ? reject(this.failure) : resolve()));
            this.out.on('error', reject);
        });
        this.closed.catch(() => { });
        this.pack.pipe(this.out);
    }
    entry(name, size) {
        if (this.failure)
            throw this.failure;
        let sink;
        const written = new Promise((resolve, reject) => {
            sink = this.pack.entry({ name, size, mode: 0o644, mtime: this.mtime, type: 'file' }, (err) => (err ? reject(err) : resolve()));
        });
        return { sink, written };
    }
    async addBuffer(name, bytes) {
        const { sink, written } = this.entry(name, bytes.length);
        sink.end(bytes);
        await Promise.race([written, this.failed]);
        this.entries.push({ name, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    }
    /** Streams `input`, of known size, into the archive; returns the sha256 of what was written. */
    async addStream(name, input, size, onBytes) {
        const hash = createHash('sha256');
        let sink = null;
        let written = null;
        let bytes = 0;
        try {
            for await (const chunk of input) {
                if (!sink)
                    ({ sink, written } = this.entry(name, size));
                bytes += chunk.length;
                if (bytes > size)
                    break;
                hash.update(chunk);
                if (!sink.write(chunk))
                    await Promise.race([new Promise((r) => sink.once('drain', r)), this.failed]);
                onBytes(chunk.length);
            }
        }
        catch (err) {
            input.destroy();
            throw err;
        }
        if (bytes !== size) {
            input.destroy();
            throw new ExportError(`${name} changed size while it was exported (${size} bytes expected); nothing was written`);
        }
        if (!sink)
            ({ sink, written } = this.entry(name, size));
        sink.end();
        await Promise.race([written, this.failed]);
        const sha256 = hash.digest('hex');
        this.entries.push({ name, size, sha256 });
        return sha256;
    }
    async finish() {
        this.pack.finalize();
        await Promise.race([this.closed, this.failed]);
    }
    destroy() {
        this.pack.destroy();
        this.out.destroy();
    }
}
