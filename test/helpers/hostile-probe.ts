/**
 * Measures what a hostile request does to a larder child process (issue 25): while it is processed, a
 * probe in a worker thread (so that nothing the test process does delays it) asks the child for `/health`
 * every 50 ms, one request at a time, and keeps the longest wait; the child's RSS is sampled from
 * /proc/<pid>/status every 20 ms, and its VmHWM (reset before the attack where the kernel allows) read at
 * the end. The hostile request gets `capMs` (default 60 s): past it, it is abandoned and reported as such.
 * A child whose RSS passes `rssLimitMiB` (default 3 GiB) is killed, so a memory attack cannot take the
 * machine with it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';

/** What the hostile request(s) got: a status and the first line of the body (or a summary of several). */
export interface HostileAnswer {
  status: number;
  firstLine: string;
  /** Figures an attack measures besides (times of its several requests, disk used), for its assertions. */
  figures?: Record<string, number>;
}

export interface AttackMeasure {
  /** null when there was no answer: abandoned after `capMs`, or the connection failed (`error`). */
  answer: HostileAnswer | null;
  error: string | null;
  timedOut: boolean;
  /** Time until the hostile request(s) were answered (or abandoned). */
  hostileMs: number;
  /** Longest time a probe request waited for its answer (one still waiting at the end counts as waiting until then). */
  longestWaitMs: number;
  probesAnswered: number;
  probesFailed: number;
  baselineRssMiB: number;
  peakRssMiB: number;
  killedForRss: boolean;
}

export interface MeasureOptions {
  /** How long the hostile request may take before it is abandoned. Default 60 s. */
  capMs?: number;
  /** How long the probe goes on after the hostile answer, for work the server does after answering. Default 1 s. */
  settleMs?: number;
  rssLimitMiB?: number;
  /** The path the probe asks for. Default `/health`. */
  probePath?: string;
}

interface ProbeResult {
  longestWaitMs: number;
  answered: number;
  failed: number;
  peakRssKiB: number;
  killedForRss: boolean;
}

// Plain JavaScript, run as a worker with `eval`: no loader needed.
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const fs = require('node:fs');
const { url, pid, intervalMs, rssLimitKiB } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let longest = 0, answered = 0, failed = 0, peak = 0, killed = false, stopping = false, pendingSince = null;
const rss = () => {
  try { return Number(/VmRSS:\\s+(\\d+)/.exec(fs.readFileSync('/proc/' + pid + '/status', 'utf8'))[1]); } catch { return 0; }
};
const sampler = setInterval(() => {
  const now = rss();
  if (now > peak) peak = now;
  if (now > rssLimitKiB && !killed) {
    killed = true;
    try { process.kill(pid, 'SIGKILL'); } catch {}
  }
}, 20);
const once = () => {
  if (stopping) return;
  const started = performance.now();
  pendingSince = started;
  let finished = false;
  const done = (ok) => {
    if (finished) return;
    finished = true;
    pendingSince = null;
    longest = Math.max(longest, performance.now() - started);
    if (ok) answered++; else failed++;
    setTimeout(once, intervalMs);
  };
  const req = http.get(url, { agent }, (res) => {
    res.on('error', () => done(false));
    res.on('end', () => done(res.statusCode === 200));
    res.resume();
  });
  req.on('error', () => done(false));
};
once();
parentPort.once('message', () => {
  stopping = true;
  clearInterval(sampler);
  const waiting = pendingSince === null ? 0 : performance.now() - pendingSince;
  parentPort.postMessage({ longestWaitMs: Math.max(longest, waiting), answered, failed, peakRssKiB: Math.max(peak, rss()), killedForRss: killed });
  agent.destroy();
});
`;

function startProbe(url: string, pid: number, rssLimitMiB: number): { stop(): Promise<ProbeResult> } {
  const worker = new Worker(PROBE, { eval: true, workerData: { url, pid, intervalMs: 50, rssLimitKiB: rssLimitMiB * 1024 } });
  const result = new Promise<ProbeResult>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      try {
        return await result;
      } finally {
        await worker.terminate();
      }
    },
  };
}

/** A field of /proc/<pid>/status in KiB (0 once the process is gone). */
export function procStatusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Resets the peak RSS the kernel keeps (VmHWM) to the current RSS; false where that is not allowed. */
function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

const MiB = (kib: number) => Math.round(kib / 1024);

/**
 * Runs `attack` against the child `pid` listening on `url` and measures it. `attack` gets a signal that
 * aborts when the cap is reached; it should end its requests then.
 */
export async function measureAttack(
  url: string,
  pid: number,
  attack: (signal: AbortSignal) => Promise<HostileAnswer>,
  options: MeasureOptions = {},
): Promise<AttackMeasure> {
  const capMs = options.capMs ?? 60_000;
  const rssLimitMiB = options.rssLimitMiB ?? 3072;
  const baselineKiB = procStatusKiB(pid, 'VmRSS');
  const peakReset = resetPeakRss(pid);
  const probe = startProbe(`${url}${options.probePath ?? '/health'}`, pid, rssLimitMiB);
  await sleep(200);

  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<'cap'>((resolve) => {
    timer = setTimeout(() => resolve('cap'), capMs);
  });
  const started = performance.now();
  let answer: HostileAnswer | null = null;
  let error: string | null = null;
  let timedOut = false;
  try {
    const outcome = await Promise.race([attack(abort.signal), cap]);
    if (outcome === 'cap') {
      timedOut = true;
      abort.abort();
    } else answer = outcome;
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
  const hostileMs = performance.now() - started;
  if (!timedOut) await sleep(options.settleMs ?? 1000);
  const probed = await probe.stop();
  const hwm = peakReset ? procStatusKiB(pid, 'VmHWM') : 0;
  return {
    answer,
    error,
    timedOut,
    hostileMs,
    longestWaitMs: probed.longestWaitMs,
    probesAnswered: probed.answered,
    probesFailed: probed.failed,
    baselineRssMiB: MiB(baselineKiB),
    peakRssMiB: MiB(Math.max(probed.peakRssKiB, hwm)),
    killedForRss: probed.killedForRss,
  };
}

/** One line for a report: answer, time, longest wait, RSS. */
export function describeMeasure(m: AttackMeasure): string {
  const answer = m.timedOut ? `no answer within the cap` : m.answer ? `${m.answer.status} ${m.answer.firstLine}` : `failed: ${m.error}`;
  return `${answer} (${(m.hostileMs / 1000).toFixed(1)} s); longest wait of others ${(m.longestWaitMs / 1000).toFixed(2)} s (${m.probesAnswered} probes answered, ${m.probesFailed} failed); RSS ${m.baselineRssMiB} → ${m.peakRssMiB} MiB${m.killedForRss ? ' (killed at the limit)' : ''}`;
}
