/**
 * One verified download from the upstream, shared by every request for the same file. The body is hashed
 * as it arrives and handed to the clients from memory; it is also written to tmp/, and a client that falls
 * behind reads the file. Only a file whose size and hash match what the page advertised is committed to
 * the blob store; a mismatch fails every client, and the last byte is held back until the file is verified.
 *
 * When the file cannot be kept (the disk is full or below its reserve, at the start or midway) the clients
 * still get it, verified, from memory — the upstream is then read no faster than the slowest client takes
 * it — and nothing is kept. Such a download takes no new clients. A download whose size is unknown, or that
 * is not being kept, is abandoned once every client has gone. Nothing partial is ever kept.
 */
import { open, unlink } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { BatchedFileWriter, MAX_IN_FLIGHT } from './batched-file-writer.js';
import { DownloadVerifier } from './download-verifier.js';
/** How far the slowest client of a download that is not kept may fall behind the upstream. */
const MAX_BUFFERED = 8 << 20;
const READ_SIZE = 1 << 20;
export class FileDownload {
    spec;
    state = 'running';
    finished;
    /** The size when it is known before the end: advertised by the page or by Content-Length. */
    knownSize;
    error = null;
    received = 0;
    keeping;
    writer = null;
    committedPath = null;
    tmpPath;
    memory = [];
    followers = new Set();
    waiters = [];
    abandoned = false;
    closed = false;
    onClosed = [];
    tmpRemoved = false;
    constructor(spec) {
        this.spec = spec;
        this.keeping = spec.keep;
        this.knownSize = spec.expected.size ?? spec.contentLength;
        this.tmpPath = spec.blobs.tmpPath('download');
        this.finished = this.run();
        this.finished.catch(() => { });
    }
    /** May another client join? Only while the file is being downloaded to be kept. */
    get joinable() {
        return this.state === 'running' && this.keeping;
    }
    get written() {
        return this.writer?.written ?? 0;
    }
    wake() {
        const waiters = this.waiters;
        this.waiters = [];
        for (const resolve of waiters)
            resolve();
    }
    changed() {
        return new Promise((resolve) => this.waiters.push(resolve));
    }
    /** Bytes before this are no longer needed in memory: on disk, or taken by every client. */
    lowWater() {
        if (this.keeping)
            return this.written;
        let lowest = this.received;
        for (const f of this.followers)
            lowest = Math.min(lowest, f.position);
        return Math.max(this.written, lowest);
    }
    release() {
        const low = this.lowWater();
        while (this.memory.length && this.memory[0].start + this.memory[0].bytes.byteLength <= low)
            this.memory.shift();
    }
    close() {
        if (this.closed)
            return;
        this.closed = true;
        for (const callback of this.onClosed)
            callback();
        this.onClosed = [];
    }
    /** Runs `callback` once the download takes no more clients (done, failed, or not kept). */
    whenClosed(callback) {
        if (this.closed)
            callback();
        else
            this.onClosed.push(callback);
    }
    stopKeeping(reason) {
        if (!this.keeping)
            return;
        this.keeping = false;
        this.close();
        this.spec.onNotKept(reason);
        if (this.followers.size === 0)
            this.abandon();
        this.wake();
    }
    abandon() {
        if (this.abandoned || this.state !== 'running')
            return;
        this.abandoned = true;
        this.spec.abort();
        this.wake();
    }
    async run() {
        const { body, expected } = this.spec;
        const verifier = new DownloadVerifier(expected, this.spec.maxBytes);
        try {
            for (const size of [expected.size, this.spec.contentLength])
                if (size !== null)
                    verifier.announced(size);
            if (this.keeping)
                await this.openWriter();
            for await (const chunk of body) {
                verifier.add(chunk);
                this.memory.push({ start: this.received, bytes: chunk });
                this.received += chunk.byteLength;
                if (this.keeping)
                    this.writer.add(chunk);
                this.wake();
                await this.backpressure();
            }
            if (this.abandoned)
                throw new Error('every client has gone');
            if (this.keeping)
                await this.writer.finish();
            const digest = verifier.finish();
            const kept = this.keeping && (await this.commit(digest));
            this.state = 'done';
            return { sha256: digest, size: this.received, kept };
        }
        catch (err) {
            this.error = this.abandoned ? new Error('every client has gone') : err;
            this.state = 'failed';
            // Releases the upstream connection when the body was refused before it was read.
            this.spec.abort();
            throw this.error;
        }
        finally {
            this.close();
            this.wake();
            await this.writer?.close();
            await this.cleanup();
        }
    }
    async openWriter() {
        try {
            this.writer = await BatchedFileWriter.open(this.tmpPath, {
                progress: () => {
                    this.release();
                    this.wake();
                },
                failed: (err) => this.stopKeeping(err),
            }, (bytes) => this.spec.mayWrite(bytes));
        }
        catch (err) {
            this.stopKeeping(err);
        }
    }
    /** Makes the verified tmp file the blob and records it; false (delivered, not kept) when that fails. */
    async commit(digest) {
        try {
            if (this.writer.stopped)
                throw this.writer.error;
            this.committedPath = await this.spec.blobs.commit(this.tmpPath, digest);
        }
        catch (err) {
            this.stopKeeping(err);
            return false;
        }
        await this.spec.onVerified({ sha256: digest, size: this.received });
        return true;
    }
    async backpressure() {
        for (;;) {
            if (this.abandoned)
                return;
            if (this.keeping ? this.writer.inFlight <= MAX_IN_FLIGHT : this.received - this.lowWater() <= MAX_BUFFERED)
                return;
            await this.changed();
        }
    }
    /** Removes the tmp file once the download has ended and no client may still read it. */
    async cleanup() {
        if (this.state === 'running' || this.followers.size > 0 || this.committedPath !== null || this.tmpRemoved)
            return;
        this.tmpRemoved = true;
        await unlink(this.tmpPath).catch(() => { });
    }
    /**
     * A stream of the file's bytes from the start. Resolves once the first bytes can be sent and rejects if
     * the download fails before that, so a caller that has sent nothing yet can still answer with an error
     * status instead of an empty, broken 200.
     */
    async follow() {
        const follower = { position: 0 };
        this.followers.add(follower);
        const chunks = this.read(follower);
        let first;
        try {
            first = await chunks.next();
        }
        catch (err) {
            await chunks.return(undefined);
            throw err;
        }
        async function* all() {
            if (first.done)
                return;
            yield first.value;
            yield* chunks;
        }
        const stream = Readable.from(all(), { objectMode: false, highWaterMark: READ_SIZE });
        stream.once('close', () => void chunks.return(undefined).catch(() => { }));
        return stream;
    }
    leave(follower) {
        if (!this.followers.delete(follower))
            return;
        if (this.followers.size === 0 && (!this.keeping || this.knownSize === null))
            this.abandon();
        this.release();
        this.wake();
        void this.cleanup();
    }
    fromMemory(position, end) {
        for (const chunk of this.memory) {
            const chunkEnd = chunk.start + chunk.bytes.byteLength;
            if (position < chunk.start)
                return null;
            if (position < chunkEnd)
                return chunk.bytes.subarray(position - chunk.start, Math.min(chunkEnd, end) - chunk.start);
        }
        return null;
    }
    async openFile() {
        try {
            return await open(this.committedPath ?? this.tmpPath, 'r');
        }
        catch (err) {
            // Renamed into the blob store meanwhile: wait for the commit, then read the blob.
            await this.finished.catch(() => { });
            if (!this.committedPath)
                throw this.error ?? err;
            return open(this.committedPath, 'r');
        }
    }
    async *read(follower) {
        let handle = null;
        try {
            for (;;) {
                if (this.state === 'failed')
                    throw this.error;
                // The last byte is held back until the file is verified and kept: a client never receives a
                // complete response whose content failed (or has not yet passed) verification, and a client that
                // has the whole file finds it cached on its next request.
                const end = this.state === 'done' ? this.received : Math.max(0, this.received - 1);
                if (follower.position < end) {
                    let bytes = this.fromMemory(follower.position, end);
                    if (!bytes) {
                        handle ??= await this.openFile();
                        const buffer = Buffer.allocUnsafe(Math.min(end - follower.position, READ_SIZE));
                        const { bytesRead } = await handle.read(buffer, 0, buffer.length, follower.position);
                        if (bytesRead === 0)
                            throw new Error('download file shrank while it was read');
                        bytes = bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
                    }
                    follower.position += bytes.byteLength;
                    if (!this.keeping)
                        this.release();
                    this.wake();
                    yield bytes;
                    continue;
                }
                if (this.state === 'done')
                    return;
                await this.changed();
            }
        }
        finally {
            await handle?.close().catch(() => { });
            this.leave(follower);
        }
    }
}
