/**
 * Where the hostile-content attacks run (test/slow/hostile-content.test.ts, bench/hostile.ts): one fake
 * upstream and one data directory (with the uploader `alice`) for a whole run, and a fresh `larder serve`
 * child per attack, stopped afterwards (killed when it does not stop: it may still be stuck in the attack).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { addAlice, startChildServer, type ChildServer } from './child-server.js';
import { measureAttack, type AttackMeasure, type HostileAnswer, type MeasureOptions } from './hostile-probe.js';
import { basicAuth } from './larder.js';

export interface HostileLab {
  upstream: FakeUpstream;
  /** The data directory every larder of the run uses. */
  data: string;
  /** Scratch space for built inputs. */
  tmp: string;
  /** The Authorization header of the uploader. */
  uploaderAuth: string;
  close(): Promise<void>;
}

export interface AttackContext {
  lab: HostileLab;
  /** The larder under attack. */
  url: string;
}

export interface Attack {
  id: string;
  /** What the attacker does, for the report. */
  title: string;
  /** Unmeasured: builds the inputs, puts them on the fake upstream, uploads what the hostile request then views. */
  prepare?(ctx: AttackContext): Promise<void>;
  /** The hostile request(s), measured; ends its requests when `signal` aborts. */
  send(ctx: AttackContext, signal: AbortSignal): Promise<HostileAnswer>;
  /** Unmeasured, after the attack: lets go of the inputs (they run to hundreds of MB). */
  cleanup?(ctx: AttackContext): void;
  /** How long to go on probing after the answer; default 1 s. */
  settleMs?: number;
}

export interface AttackRun extends AttackMeasure {
  /** The larder child exited by itself during the attack, with the end of its output. */
  crashed: string | null;
}

export async function startHostileLab(): Promise<HostileLab> {
  const tmp = await mkdtemp(join(tmpdir(), 'larder-hostile-'));
  const data = join(tmp, 'data');
  await addAlice(data);
  const upstream = await startFakeUpstream();
  return {
    upstream,
    data,
    tmp,
    uploaderAuth: basicAuth('alice', 'alice-password'),
    async close() {
      await upstream.close();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/** Starts a fresh larder on the lab, prepares the attack, measures it, and stops the larder. */
export async function runAttack(lab: HostileLab, attack: Attack, options: MeasureOptions = {}): Promise<AttackRun> {
  const server = await startChildServer(['--data', lab.data, '--upstream', lab.upstream.url, '--upstream-retries', '0'], {}, { startTimeoutMs: 60_000 });
  const ctx = { lab, url: server.url };
  try {
    await attack.prepare?.(ctx);
    const measure = await measureAttack(server.url, server.child.pid!, (signal) => attack.send(ctx, signal), {
      settleMs: attack.settleMs,
      ...options,
    });
    const exit = server.exitStatus();
    const crashed = exit && !measure.killedForRss ? `exited (${exit.code ?? exit.signal}): ${server.output().slice(-600)}` : null;
    return { ...measure, crashed };
  } finally {
    attack.cleanup?.(ctx);
    await stopHard(server);
  }
}

async function stopHard(server: ChildServer): Promise<void> {
  if (!server.alive()) return;
  const stopped = server.stop('SIGTERM');
  const late = await Promise.race([stopped.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 10_000).unref())]);
  if (late) await server.stop('SIGKILL');
}

export interface Sent {
  status: number;
  firstLine: string;
  bytes: number;
  ms: number;
  headers: Record<string, string | string[] | undefined>;
}

/** One request on a new connection; the body is read to its end, its first line kept. */
export function send(url: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer; signal?: AbortSignal } = {}): Promise<Sent> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: false, signal: opts.signal }, (res) => {
      let head = Buffer.alloc(0);
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (head.length < 4096) head = Buffer.concat([head, chunk.subarray(0, 4096)]);
      });
      res.on('error', reject);
      res.on('end', () => {
        const text = head.toString('utf8').trim();
        resolve({
          status: res.statusCode ?? 0,
          firstLine: text.split('\n', 1)[0]!.slice(0, 400),
          bytes,
          ms: performance.now() - started,
          headers: res.headers,
        });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A `send` as the report states it: status, the start of the body's first line, and the body's size. */
export function answerOf(sent: Sent): HostileAnswer {
  // A refusal's message is the point; a page's first line only shows what kind of page it is.
  const keep = sent.status >= 400 ? 400 : 60;
  const line = sent.firstLine.length > keep ? `${sent.firstLine.slice(0, keep)}…` : sent.firstLine;
  const size = sent.bytes >= 1 << 20 ? `${(sent.bytes / (1 << 20)).toFixed(1)} MiB` : `${(sent.bytes / 1024).toFixed(1)} KiB`;
  return { status: sent.status, firstLine: `${line} [${size}]` };
}
