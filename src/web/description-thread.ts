/**
 * Renders Markdown descriptions on one worker thread, started at the first description and stopped after
 * a minute without one (its memory, 10 MiB or more, goes back): a description whose sanitizing takes
 * seconds never holds up the main thread. Each job has a time limit;
 * a job that runs past it is given up, its worker terminated, and the next job gets a fresh worker. Jobs
 * wait their turn in a short queue; one more is answered `busy` at once.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DescriptionJob, DescriptionReply } from './description-worker.js';

/** Next to this file: description-worker.ts under tsx (tests), description-worker.js in the compiled dist/. */
const WORKER_URL = new URL(`./description-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/** A real README of 500 kB renders in about a second; what takes longer is hostile, or the machine is stuck. */
export const DESCRIPTION_TIME_LIMIT_MS = 3_000;
/** Descriptions that may wait for the worker; one more is shown as text at once. */
export const DESCRIPTION_QUEUE = 4;
/** Heap of the worker: sanitizing builds a frame per open element. */
const WORKER_HEAP_MB = 256;
/** Loading markdown-it and sanitize-html takes a fraction of a second; a worker not ready by then is broken. */
export const DESCRIPTION_START_LIMIT_MS = 30_000;
/** A worker given no description for this long is stopped; the next description starts one again. */
export const DESCRIPTION_IDLE_MS = 60_000;

/** `failed`: the worker failed at this description; `unavailable`: no worker could start. */
export type Refusal = 'timeout' | 'failed' | 'unavailable' | 'busy' | 'closed';
export type ThreadAnswer = { html: string } | { refused: Refusal };

export interface DescriptionThreadOptions {
  timeLimitMs?: number;
  maxQueue?: number;
  /** Arms a job's time limit and returns what disarms it (default: a timer). Tests pass one they fire themselves. */
  deadline?: (ms: number, expire: () => void) => () => void;
  /** Told when a worker fails to start or dies with an error (a job's own failure is its answer). */
  onWorkerFailure?: (err: Error) => void;
  /** The worker's code; default description-worker next to this file. */
  workerUrl?: URL;
  /** How long a new worker may take to load (not counted against its first job's time limit). */
  startLimitMs?: number;
  /** Arms the idle stop of a worker with nothing to do and returns what disarms it (default: an unref'd timer). */
  idle?: (ms: number, stop: () => void) => () => void;
}

interface Job {
  id: number;
  text: string;
  answer: (answer: ThreadAnswer) => void;
}

const timer = (ms: number, expire: () => void) => {
  const handle = setTimeout(expire, ms);
  return () => clearTimeout(handle);
};

const backgroundTimer = (ms: number, expire: () => void) => {
  const handle = setTimeout(expire, ms).unref();
  return () => clearTimeout(handle);
};

export class DescriptionThread {
  private readonly timeLimitMs: number;
  private readonly maxQueue: number;
  private readonly deadline: (ms: number, expire: () => void) => () => void;
  private readonly idle: (ms: number, stop: () => void) => () => void;
  private disarmIdle: (() => void) | null = null;
  private worker: Worker | null = null;
  private ready = false;
  private running: { job: Job; disarm: () => void } | null = null;
  private readonly queue: Job[] = [];
  private nextId = 1;
  private started = 0;
  private closed = false;

  constructor(private readonly options: DescriptionThreadOptions = {}) {
    this.timeLimitMs = options.timeLimitMs ?? DESCRIPTION_TIME_LIMIT_MS;
    this.maxQueue = options.maxQueue ?? DESCRIPTION_QUEUE;
    this.deadline = options.deadline ?? timer;
    this.idle = options.idle ?? backgroundTimer;
  }

  /** Workers started so far (a job over its time limit costs one). */
  get workersStarted(): number {
    return this.started;
  }

  /** The sanitized HTML of a Markdown description, or why there is none. */
  render(text: string): Promise<ThreadAnswer> {
    if (this.closed) return Promise.resolve({ refused: 'closed' });
    if (this.queue.length >= this.maxQueue) return Promise.resolve({ refused: 'busy' });
    return new Promise((answer) => {
      this.queue.push({ id: this.nextId++, text, answer });
      this.next();
    });
  }

  /** Answers what waits or runs with `closed` and stops the worker. */
  async close(): Promise<void> {
    this.closed = true;
    const waiting = [...(this.running ? [this.running.job] : []), ...this.queue.splice(0)];
    this.running?.disarm();
    this.running = null;
    for (const job of waiting) job.answer({ refused: 'closed' });
    await this.stopWorker();
  }

  private next(): void {
    if (this.closed || this.running) return;
    if (this.queue.length === 0) {
      this.armIdle();
      return;
    }
    this.disarmIdle?.();
    this.disarmIdle = null;
    if (!this.worker) {
      this.spawn();
      return;
    }
    if (!this.ready) return;
    const job = this.queue.shift()!;
    const disarm = this.deadline(this.timeLimitMs, () => this.expired(job));
    this.running = { job, disarm };
    this.worker.ref();
    this.worker.postMessage({ id: job.id, text: job.text } satisfies DescriptionJob);
  }

  private spawn(): void {
    const worker = new Worker(this.options.workerUrl ?? WORKER_URL, {
      name: 'larder-descriptions',
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    this.worker = worker;
    this.ready = false;
    this.started++;
    let failure: Error | null = null;
    const startLimitMs = this.options.startLimitMs ?? DESCRIPTION_START_LIMIT_MS;
    const startLimit = setTimeout(() => {
      failure = new Error(`the description worker did not start within ${startLimitMs / 1000} s`);
      void worker.terminate();
    }, startLimitMs);
    startLimit.unref();
    worker.on('message', (reply: DescriptionReply) => {
      if (worker !== this.worker) return;
      if ('ready' in reply) {
        clearTimeout(startLimit);
        this.ready = true;
        worker.unref();
      } else {
        this.finished(reply);
      }
      this.next();
    });
    worker.on('error', (err) => (failure = err));
    worker.on('exit', (code) => {
      clearTimeout(startLimit);
      if (worker !== this.worker) return;
      this.exited(failure ?? new Error(`the description worker stopped (exit code ${code})`));
    });
  }

  private finished(reply: Exclude<DescriptionReply, { ready: true }>): void {
    const running = this.running;
    if (!running || running.job.id !== reply.id) return;
    running.disarm();
    this.running = null;
    this.worker?.unref();
    running.job.answer('html' in reply ? { html: reply.html } : { refused: 'failed' });
  }

  private expired(job: Job): void {
    if (this.running?.job !== job) return;
    this.running = null;
    job.answer({ refused: 'timeout' });
    void this.stopWorker();
    this.next();
  }

  /** A worker that died: its job failed; one that never became ready leaves what waits without one, rather than starting again for each. */
  private exited(err: Error): void {
    const wasReady = this.ready;
    this.worker = null;
    this.ready = false;
    this.options.onWorkerFailure?.(err);
    const running = this.running;
    this.running = null;
    running?.disarm();
    running?.job.answer({ refused: 'failed' });
    if (!wasReady) for (const job of this.queue.splice(0)) job.answer({ refused: 'unavailable' });
    this.next();
  }

  private armIdle(): void {
    const worker = this.worker;
    if (!worker || !this.ready || this.disarmIdle) return;
    this.disarmIdle = this.idle(DESCRIPTION_IDLE_MS, () => {
      this.disarmIdle = null;
      if (this.worker === worker && !this.running && this.queue.length === 0) void this.stopWorker();
    });
  }

  private async stopWorker(): Promise<void> {
    this.disarmIdle?.();
    this.disarmIdle = null;
    const worker = this.worker;
    this.worker = null;
    this.ready = false;
    await worker?.terminate();
  }
}
