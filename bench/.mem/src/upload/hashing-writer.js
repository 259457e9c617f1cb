/**
 * A Writable that writes to a new file and computes md5, sha256 and blake2b-256 of the bytes as they
 * pass, holding at most one chunk in memory. It refuses to grow past `maxBytes`.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { createBLAKE2b } from 'hash-wasm';
export class HashingFileWriter extends Writable {
    path;
    options;
    #handle = null;
    #md5 = createHash('md5');
    #sha256 = createHash('sha256');
    #blake2 = null;
    #size = 0;
    #digests = null;
    constructor(path, options) {
        super({ decodeStrings: true });
        this.path = path;
        this.options = options;
    }
    /** The digests, available once the stream has emitted `finish`. */
    get digests() {
        if (!this.#digests)
            throw new Error(`HashingFileWriter for ${this.path} has not finished`);
        return this.#digests;
    }
    _construct(callback) {
        (async () => {
            const blake2 = await createBLAKE2b(256);
            blake2.init();
            this.#blake2 = blake2;
            // `wx`: never write through an existing file (or a planted symlink) in the temp directory.
            this.#handle = await open(this.path, 'wx', 0o600);
        })().then(() => callback(), callback);
    }
    _write(chunk, _encoding, callback) {
        if (this.#size + chunk.length > this.options.maxBytes) {
            callback(this.options.tooLarge());
            return;
        }
        this.#size += chunk.length;
        this.#md5.update(chunk);
        this.#sha256.update(chunk);
        this.#blake2.update(chunk);
        writeAll(this.#handle, chunk).then(() => callback(), callback);
    }
    _final(callback) {
        const handle = this.#handle;
        this.#handle = null;
        handle.close().then(() => {
            this.#digests = {
                size: this.#size,
                md5: this.#md5.digest('hex'),
                sha256: this.#sha256.digest('hex'),
                blake2b_256: this.#blake2.digest('hex'),
            };
            callback();
        }, callback);
    }
    _destroy(error, callback) {
        const handle = this.#handle;
        this.#handle = null;
        if (!handle) {
            callback(error);
            return;
        }
        handle.close().then(() => callback(error), () => callback(error));
    }
}
async function writeAll(handle, chunk) {
    let offset = 0;
    while (offset < chunk.length) {
        const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
        offset += bytesWritten;
    }
}
/** Resolves once `stream` is closed (destroyed or finished), whether or not it failed. */
export function whenClosed(stream) {
    if (stream.closed)
        return Promise.resolve();
    return new Promise((resolve) => stream.once('close', () => resolve()));
}
