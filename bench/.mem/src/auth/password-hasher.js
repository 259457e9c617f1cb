/**
 * Password hashing on its own worker threads, so that scrypt never occupies libuv's thread pool, which
 * file reads need. A fixed number of workers each run one scrypt at a time; further jobs wait in a
 * bounded queue, and a job that finds the queue full is refused with 503.
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { LarderError } from '../base/errors.js';
import { formatHash, KEY_LENGTH, keysEqual, newSalt, PARAMS, parseHash } from './passwords.js';
/** Plain CommonJS, evaluated as is: works alike under tsx and from the compiled dist/. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
parentPort.on('message', ({ password, salt, keyLength, N, r, p }) => {
  try {
    parentPort.postMessage({ key: scryptSync(password, salt, keyLength, { N, r, p }) });
  } catch (err) {
    parentPort.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
});
`;
export class PasswordHasher {
    threads;
    maxQueue;
    slots = [];
    queue = [];
    closed = false;
    finished = 0;
    /** Duration of the latest job, for the Retry-After of a refusal. */
    lastJobMs = 50;
    constructor(options = {}) {
        this.threads = options.threads ?? (availableParallelism() >= 4 ? 2 : 1);
        this.maxQueue = options.maxQueue ?? 64;
    }
    /** Jobs run to the end so far (tests count them). */
    get jobsFinished() {
        return this.finished;
    }
    async hash(password) {
        const salt = newSalt();
        const key = await this.derive({ password, salt, keyLength: KEY_LENGTH, ...PARAMS });
        return formatHash({ params: PARAMS, salt, key });
    }
    async verify(password, stored) {
        const parsed = parseHash(stored);
        if (!parsed)
            return false;
        const key = await this.derive({ password, salt: parsed.salt, keyLength: parsed.key.length, ...parsed.params });
        return keysEqual(key, parsed.key);
    }
    /** Refuses what is queued, stops the workers (a job they are running is refused too). */
    async close() {
        this.closed = true;
        for (const job of this.queue.splice(0))
            job.reject(new Error('the password hasher is closed'));
        await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
    }
    derive(input) {
        if (this.closed)
            return Promise.reject(new Error('the password hasher is closed'));
        const slot = this.idleSlot();
        if (!slot && this.queue.length >= this.maxQueue)
            return Promise.reject(this.busy());
        return new Promise((resolve, reject) => {
            const job = { input, resolve, reject };
            if (slot)
                this.run(slot, job);
            else
                this.queue.push(job);
        });
    }
    busy() {
        const seconds = Math.max(1, Math.ceil(((this.queue.length + this.threads) * this.lastJobMs) / this.threads / 1000));
        return new LarderError('password_checks_busy', `Too many passwords are being checked at the moment; try again in ${seconds} s.`, {
            'Retry-After': String(seconds),
        });
    }
    idleSlot() {
        const idle = this.slots.find((slot) => !slot.job);
        if (idle)
            return idle;
        return this.slots.length < this.threads ? this.spawn() : null;
    }
    spawn() {
        // execArgv: [] keeps the parent's --import tsx out of a worker that needs none of it.
        const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], name: 'larder-password-hasher' });
        const slot = { worker, job: null, started: 0, failure: null };
        worker.unref();
        worker.on('message', (reply) => this.done(slot, reply));
        worker.on('error', (err) => (slot.failure = err));
        worker.on('exit', (code) => this.exited(slot, code));
        this.slots.push(slot);
        return slot;
    }
    run(slot, job) {
        slot.job = job;
        slot.started = performance.now();
        // Referenced only while it works: an idle hasher never keeps the process alive, a busy one finishes.
        slot.worker.ref();
        slot.worker.postMessage(job.input);
    }
    done(slot, reply) {
        const job = slot.job;
        slot.job = null;
        slot.worker.unref();
        this.finished++;
        this.lastJobMs = performance.now() - slot.started;
        if (job) {
            if (reply.key)
                job.resolve(Buffer.from(reply.key.buffer, reply.key.byteOffset, reply.key.byteLength));
            else
                job.reject(new Error(`password hashing failed: ${reply.error}`));
        }
        this.next(slot);
    }
    exited(slot, code) {
        this.slots.splice(this.slots.indexOf(slot), 1);
        slot.job?.reject(slot.failure ?? new Error(`the password hashing worker stopped (exit code ${code})`));
        slot.job = null;
        if (this.closed || this.queue.length === 0)
            return;
        this.next(this.spawn());
    }
    next(slot) {
        const job = this.queue.shift();
        if (job)
            this.run(slot, job);
    }
}
