/**
 * Hashes download bodies on a worker thread, so that the main thread only copies each byte once more
 * (into a 4 MiB batch, handed over and back without a copy) instead of hashing it: on two cores the
 * hash then runs beside the socket and file work. One worker serves every download of a larder; it starts with the first job, does not
 * keep the process alive, and is stopped by `close`.
 */
import { Worker } from 'node:worker_threads';

/** Bytes copied into one batch before it is handed to the worker (each hand-over wakes the worker: few and large). */
const BATCH = 4 << 20;
/** Batches handed over and not yet hashed, past which `drained` waits. */
const MAX_BACKLOG = 4;

// CommonJS, evaluated: no file to resolve whether larder runs compiled or under tsx.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const jobs = new Map();
parentPort.on('message', (m) => {
  if (m.names) return void jobs.set(m.id, m.names.map((name) => createHash(name)));
  const hashes = jobs.get(m.id);
  if (!hashes) return;
  if (m.batch) {
    const bytes = new Uint8Array(m.batch, 0, m.length);
    for (const hash of hashes) hash.update(bytes);
    return parentPort.postMessage({ id: m.id, batch: m.batch }, [m.batch]);
  }
  jobs.delete(m.id);
  if (m.end) parentPort.postMessage({ id: m.id, digests: hashes.map((hash) => hash.digest('hex')) });
});
`;

type Reply = { id: number; batch: ArrayBuffer } | { id: number; digests: string[] };

export class HashWorker {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly jobs = new Map<number, HashJob>();

  /** A job hashing one body with each of `names` (node:crypto hash names). */
  open(names: string[]): HashJob {
    const id = this.nextId++;
    const job = new HashJob(
      id,
      (message, transfer) => this.post(message, transfer),
      () => this.jobs.delete(id),
    );
    this.jobs.set(id, job);
    this.post({ id, names });
    return job;
  }

  /** Stops the worker unless a job is still under way (it starts again for the next one). */
  async close(): Promise<void> {
    if (this.jobs.size > 0) return;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private post(message: object, transfer?: ArrayBuffer[]): void {
    this.started().postMessage(message, transfer);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (reply: Reply) => this.jobs.get(reply.id)?.replied(reply));
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const job of this.jobs.values()) job.failed(err);
      this.jobs.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the hashing worker stopped')));
    this.worker = worker;
    return worker;
  }
}

/** One body's hashes: bytes in with `update`, hex digests out of `digests`. */
export class HashJob {
  private batch: ArrayBuffer | null = null;
  private filled = 0;
  private backlog = 0;
  private readonly free: ArrayBuffer[] = [];
  private error: Error | null = null;
  private waiting: { resolve: () => void; reject: (err: Error) => void } | null = null;
  private ending: { resolve: (digests: string[]) => void; reject: (err: Error) => void } | null = null;

  constructor(
    private readonly id: number,
    private readonly post: (message: object, transfer?: ArrayBuffer[]) => void,
    private readonly done: () => void,
  ) {}

  update(chunk: Uint8Array): void {
    let offset = 0;
    while (offset < chunk.byteLength) {
      this.batch ??= this.free.pop() ?? new ArrayBuffer(BATCH);
      const n = Math.min(BATCH - this.filled, chunk.byteLength - offset);
      new Uint8Array(this.batch, this.filled, n).set(chunk.subarray(offset, offset + n));
      this.filled += n;
      offset += n;
      if (this.filled === BATCH) this.hand();
    }
  }

  /** Resolves once the worker is not far behind (at once, usually: it hashes faster than bytes arrive). */
  drained(): Promise<void> {
    if (this.error) return Promise.reject(this.error);
    if (this.backlog < MAX_BACKLOG) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The hex digests, in the order of the names, once every byte is hashed. */
  digests(): Promise<string[]> {
    if (this.error) return Promise.reject(this.error);
    this.hand();
    return new Promise((resolve, reject) => {
      this.ending = { resolve, reject };
      this.post({ id: this.id, end: true });
    });
  }

  /** Drops the job without its digests. */
  discard(): void {
    this.post({ id: this.id, drop: true });
    this.done();
  }

  replied(reply: Reply): void {
    if ('digests' in reply) {
      this.done();
      this.ending?.resolve(reply.digests);
      return;
    }
    this.backlog--;
    this.free.push(reply.batch);
    if (this.waiting && this.backlog < MAX_BACKLOG) {
      this.waiting.resolve();
      this.waiting = null;
    }
  }

  failed(err: Error): void {
    this.error = err;
    this.waiting?.reject(err);
    this.ending?.reject(err);
  }

  private hand(): void {
    if (!this.batch || this.filled === 0) return;
    this.post({ id: this.id, batch: this.batch, length: this.filled }, [this.batch]);
    this.backlog++;
    this.batch = null;
    this.filled = 0;
  }
}
