/** Small file helpers for export and import: a hashing synchronous line writer and a synchronous line reader. */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
const CHUNK = 1 << 20;
/** Appends lines to a new file through a 1 MiB buffer, hashing what it writes (memory stays bounded). */
export class SyncLineWriter {
    path;
    fd;
    hash = createHash('sha256');
    buffer = [];
    buffered = 0;
    size = 0;
    lines = 0;
    constructor(path) {
        this.path = path;
        this.fd = openSync(path, 'w');
    }
    line(text) {
        this.buffer.push(text, '\n');
        this.buffered += text.length + 1;
        this.lines++;
        if (this.buffered >= CHUNK)
            this.flush();
    }
    flush() {
        if (!this.buffer.length)
            return;
        const bytes = Buffer.from(this.buffer.join(''), 'utf8');
        this.buffer = [];
        this.buffered = 0;
        this.hash.update(bytes);
        this.size += bytes.length;
        let offset = 0;
        while (offset < bytes.length)
            offset += writeSync(this.fd, bytes, offset);
    }
    /** Flushes and closes; returns the file's size and sha256. */
    close() {
        this.flush();
        closeSync(this.fd);
        return { size: this.size, sha256: this.hash.digest('hex'), lines: this.lines };
    }
}
/** Yields the lines of a UTF-8 file (without their newline), reading 1 MiB at a time. */
export function* readLinesSync(path) {
    const fd = openSync(path, 'r');
    try {
        const chunk = Buffer.allocUnsafe(CHUNK);
        let rest = Buffer.alloc(0);
        for (;;) {
            const n = readSync(fd, chunk, 0, CHUNK, null);
            if (n === 0)
                break;
            const data = rest.length ? Buffer.concat([rest, chunk.subarray(0, n)]) : Buffer.from(chunk.subarray(0, n));
            let start = 0;
            for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
                yield data.toString('utf8', start, nl);
                start = nl + 1;
            }
            rest = data.subarray(start);
        }
        if (rest.length)
            yield rest.toString('utf8');
    }
    finally {
        closeSync(fd);
    }
}
/** fsyncs a file and the directory that holds it. */
export async function syncFileAndDir(path) {
    for (const p of [path, dirname(path)]) {
        const handle = await open(p, 'r');
        try {
            await handle.sync();
        }
        finally {
            await handle.close();
        }
    }
}
