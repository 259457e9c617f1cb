/**
 * What the `backends` section shares between its parts: its context from the runner, the two larders it
 * compares (each with the CPU of the processes behind it), and the checks that each larder serves a file
 * from its own backend with the right bytes.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ScaleContext, ScaleLarder } from '../scale/common.js';
import { cpuSeconds } from '../lib/proc.js';

export interface LarderOptions {
  /** Config keys merged over the bench's own (bench/larder-child.mjs reads them from BENCH_LARDER_OVERRIDES). */
  overrides?: Record<string, unknown>;
  env?: Record<string, string>;
}

export interface BackendsContext extends Omit<ScaleContext, 'startLarder'> {
  startLarder(label: string, profile?: boolean, dataDir?: string, options?: LarderOptions): Promise<ScaleLarder>;
}

export interface BackendsKnobs {
  reps: number;
  wrkSeconds: number;
  warmupSeconds: number;
  connections: number;
  wrkThreads: number;
}

export function backendsKnobs(env: NodeJS.ProcessEnv): BackendsKnobs {
  const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
  return {
    reps: num('BENCH_REPS', 5),
    wrkSeconds: num('BENCH_SECONDS', 3),
    warmupSeconds: num('BENCH_WARMUP_SECONDS', 1),
    connections: num('BENCH_CONNECTIONS', 32),
    wrkThreads: num('BENCH_WRK_THREADS', 1),
  };
}

/** One of the compared larders. */
export interface Side {
  /** `LMDB + files` or `PostgreSQL + S3`. */
  name: string;
  larder: ScaleLarder;
  /** CPU seconds used so far by the processes serving this larder's backends (0 for the local ones). */
  backendCpu(): number;
  /** The S3 requests this larder made since the last call, by method (none for the local one). */
  backendRequests(): Promise<Record<string, number>>;
}

/** The sample-order rule of the whole bench: alternate which side goes first, so drift hits both. */
export async function interleaved<T>(reps: number, sides: [Side, Side], sample: (side: Side, rep: number) => Promise<T>): Promise<[T[], T[]]> {
  const out: [T[], T[]] = [[], []];
  for (let rep = 0; rep < reps; rep++) {
    const order = rep % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) out[i]!.push(await sample(sides[i]!, rep));
  }
  return out;
}

/** Every process's parent pid and its CPU seconds, from /proc. */
function processTable(): Map<number, { ppid: number; cpu: number; cmdline: string }> {
  const table = new Map<number, { ppid: number; cpu: number; cmdline: string }>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      table.set(pid, { ppid, cpu: cpuSeconds(pid), cmdline });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** The first process whose command line contains every one of `parts` (and, when given, whose parent is `ppid`). */
export function findProcess(parts: string[], ppid?: number): number | null {
  for (const [pid, p] of processTable()) {
    if ((ppid === undefined || p.ppid === ppid) && parts.every((part) => p.cmdline.includes(part))) return pid;
  }
  return null;
}

/** CPU seconds used so far by `root` and its live descendants (e.g. the postmaster and its backends). */
export function treeCpuSeconds(root: number): number {
  const table = processTable();
  let total = 0;
  const pending = [root];
  while (pending.length) {
    const pid = pending.pop()!;
    total += table.get(pid)?.cpu ?? 0;
    for (const [child, p] of table) if (p.ppid === pid) pending.push(child);
  }
  return total;
}

/** Files under `dir` of exactly `size` bytes: where a local blob store would keep a file's copy. */
export function filesOfSize(dir: string, size: number): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (statSync(path).size === size) found.push(path);
  }
  return found;
}

/** sha256 and length of the body at `url` (streamed), with the cache header. */
export async function digestOf(url: string): Promise<{ status: number; sha256: string; bytes: number; cache: string }> {
  const res = await fetch(url);
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { status: res.status, sha256: hash.digest('hex'), bytes, cache: res.headers.get('x-larder-cache') ?? '' };
}

export function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`check failed: ${message}`);
}
