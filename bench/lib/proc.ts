/** Child processes the bench starts (and only those), plus /proc readings of their memory and CPU. */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const started = new Set<ChildProcess>();

/** Remembers a child so that `killAll` can stop it when the bench ends or fails. */
export function track<T extends ChildProcess>(child: T): T {
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}

/** SIGTERM (then SIGKILL after `graceMs`) to every child this bench started and that is still running. */
export async function killAll(graceMs = 3000): Promise<void> {
  const children = [...started];
  await Promise.all(children.map((c) => stop(c, graceMs)));
}

/** Stops one child by its pid: SIGTERM, then SIGKILL when it has not exited after `graceMs`. */
export async function stop(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit, ms. */
  ms: number;
  timedOut: boolean;
}

/** Runs a command to completion, killed after `timeoutMs`. */
export function run(cmd: string, args: string[], timeoutMs: number, options: SpawnOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = track(spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options }));
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - t0, timedOut });
    });
  });
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function statusField(pid: number, field: string): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Resident set size in MiB (VmRSS), or null when the process is gone. */
export const rssMiB = (pid: number): number | null => statusField(pid, 'VmRSS');
/** Peak resident set size in MiB (VmHWM). */
export const peakRssMiB = (pid: number): number | null => statusField(pid, 'VmHWM');

const CLOCK_TICKS = 100; // sysconf(_SC_CLK_TCK) on Linux x86-64 and arm64

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** CPU seconds of a process and its direct children (nginx's master and its workers). */
export function treeCpuSeconds(pid: number): number {
  let children: string[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    // No children list (kernel without CONFIG_PROC_CHILDREN): the process alone.
  }
  return children.reduce((sum, child) => sum + cpuSeconds(Number(child)), cpuSeconds(pid));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits (bounded by `timeoutMs`) for a line on the child's stdout matching `pattern`; returns the match. */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (d: Buffer) => {
      buffer += d.toString('utf8');
      const match = pattern.exec(buffer);
      if (match) {
        cleanup();
        resolve(match);
      }
      if (buffer.length > 1 << 20) buffer = buffer.slice(-4096);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`${what} exited (code ${code}) before it was ready; output: ${buffer.slice(-2000)}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${what} was not ready within ${timeoutMs} ms; output: ${buffer.slice(-2000)}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Busy and total jiffies of the whole machine (first line of /proc/stat). */
export function systemCpu(): { busy: number; total: number } {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/** Fraction of the machine's CPU in use over `ms` (0 … 1). */
export async function machineBusy(ms: number): Promise<number> {
  const a = systemCpu();
  await sleep(ms);
  const b = systemCpu();
  return b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : 0;
}
