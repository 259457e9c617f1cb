/**
 * Scale figures for a store holding many cached files (e.g. 1,000, 10,000 and 100,000): larder's start-up
 * on that data directory, the first hit of files spread over the store, small cached files over wrk
 * (rotating paths), and `larder gc` run as the CLI. One data directory is filled level by level; each
 * level compares with the first.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TimedClient } from '../lib/http.js';
import { cpuSeconds, run } from '../lib/proc.js';
import { figure, fmt, median, series, type Series } from '../lib/report.js';
import { wrk, type WrkResult } from '../lib/wrk.js';
import { expect, growthNote, type ScaleContext, type ScaleKnobs, type ScaleLarder } from './common.js';
import { fillStore, type StoredFile } from './store-fill.js';

interface Level {
  files: number;
  fillMs: number;
  startup: number[];
  firstHit: number[];
  hits: (WrkResult & { cpuUsPerRequest: number })[];
  gc: number[];
  gcOutput: string;
}

/** `node <build>/main.js …` for a tsc build, `node --import tsx src/main.ts …` for src/ under BENCH_TSX. */
function cliArgs(moduleRoot: string, args: string[]): string[] {
  return existsSync(join(moduleRoot, 'main.js')) ? [join(moduleRoot, 'main.js'), ...args] : ['--import', 'tsx', join(moduleRoot, 'main.ts'), ...args];
}

/** A wrk script that requests `paths` in turn. */
async function rotatingScript(dir: string, label: string, paths: string[]): Promise<string> {
  const list = join(dir, `${label}-paths.txt`);
  await writeFile(list, `${paths.join('\n')}\n`);
  const script = join(dir, `${label}.lua`);
  await writeFile(
    script,
    [
      'local paths = {}',
      `for line in io.lines(${JSON.stringify(list)}) do paths[#paths + 1] = line end`,
      'local i = 0',
      'request = function()',
      '  i = i % #paths + 1',
      '  return wrk.format("GET", paths[i])',
      'end',
      '',
    ].join('\n'),
  );
  return script;
}

/** `count` files spread evenly over everything stored so far; `shift` 0.5 picks the ones between them. */
function spread(files: StoredFile[], count: number, shift = 0): StoredFile[] {
  const n = Math.min(count, files.length);
  return Array.from({ length: n }, (_, k) => files[Math.floor(((k + shift) * files.length) / n)]!);
}

const filePath = (f: StoredFile) => `/packages/${f.project}/${encodeURIComponent(f.filename)}`;

async function measureLevel(ctx: ScaleContext, knobs: ScaleKnobs, dir: string, files: StoredFile[], level: Level): Promise<void> {
  let larder: ScaleLarder | null = null;
  try {
    for (let i = 0; i < knobs.startupReps; i++) {
      const t0 = performance.now();
      larder = await ctx.startLarder(`scale-store-${level.files}-${i}`, false, dir);
      level.startup.push(performance.now() - t0);
      if (i < knobs.startupReps - 1) {
        await larder.stop();
        larder = null;
      }
    }
    expect(larder, 'BENCH_SCALE_STARTUP_REPS ≥ 1');
    const picked = spread(files, knobs.storeHitPaths);
    const client = new TimedClient(larder.url);
    try {
      // Unmeasured hits of other files first, so that the first measured ones do not pay for JIT compilation.
      for (const f of spread(files, knobs.storeHitPaths, 0.5).slice(0, 200)) await client.get(filePath(f));
      for (const f of picked) {
        const r = await client.get(filePath(f));
        expect(
          r.status === 200 && r.bytes === f.size && r.headers['x-larder-cache'] === 'hit',
          `cached ${f.filename}: ${r.status} ${r.headers['x-larder-cache']}`,
        );
        level.firstHit.push(r.ms);
      }
    } finally {
      await client.close();
    }
    const script = await rotatingScript(ctx.tmp, `scale-store-${level.files}`, picked.map(filePath));
    const options = { url: larder.url, connections: knobs.connections, threads: knobs.wrkThreads, script };
    await wrk({ ...options, seconds: knobs.warmupSeconds });
    for (let i = 0; i < knobs.reps; i++) {
      const cpu0 = cpuSeconds(larder.pid);
      const r = await wrk({ ...options, seconds: knobs.wrkSeconds });
      level.hits.push({ ...r, cpuUsPerRequest: Number((((cpuSeconds(larder.pid) - cpu0) * 1e6) / r.requests).toFixed(1)) });
    }
  } finally {
    await larder?.stop();
  }
  for (let i = 0; i < knobs.gcReps; i++) {
    const gc = await run(process.execPath, cliArgs(ctx.moduleRoot, ['gc', '--data', dir]), 600_000);
    expect(gc.code === 0, `larder gc on ${level.files} files: ${gc.stderr}`);
    level.gc.push(gc.ms);
    if (i === 0) level.gcOutput = gc.stdout.trim();
  }
}

function pushFigures(ctx: ScaleContext, level: Level, base: Level, knobs: ScaleKnobs): void {
  const n = level.files.toLocaleString('en-US');
  const isBase = level === base;
  const ref = (samples: number[]): Series | null => (isBase ? null : series(`${base.files.toLocaleString('en-US')} files`, samples));
  const grows = (small: number, large: number, unit: string) => (isBase ? '' : `; ${growthNote(small, large, base.files, level.files, unit)}`);
  ctx.figures.push(
    figure(`scale_store_${level.files}_startup_ms`, `start-up to listening, ${n} cached files`, 'ms', series('larder', level.startup), ref(base.startup), [], {
      notes: `filled in ${fmt(level.fillMs / 1000)} s${grows(median(base.startup), median(level.startup), 'ms')}`,
    }),
  );
  const p99 = (v: number[]) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(v.length * 0.99))]!;
  ctx.figures.push(
    figure(
      `scale_store_${level.files}_first_hit_ms`,
      `first hit of ${level.firstHit.length.toLocaleString('en-US')} files spread over ${n} cached`,
      'ms',
      series('larder', level.firstHit),
      ref(base.firstHit),
      [],
      { notes: `sequential, one keep-alive connection; p99 ${fmt(p99(level.firstHit))} ms${grows(median(base.firstHit), median(level.firstHit), 'ms')}` },
    ),
  );
  const rps = (l: Level) => l.hits.map((h) => h.requestsPerSec);
  const cpuUs = (l: Level) => median(l.hits.map((h) => h.cpuUsPerRequest));
  ctx.figures.push(
    figure(
      `scale_store_${level.files}_hit_rps`,
      `${knobs.storeBlobBytes / 1000} kB cached files of ${n} (${level.firstHit.length.toLocaleString('en-US')} paths), ${knobs.connections} conns`,
      'req/s',
      series(
        'larder',
        rps(level),
        level.hits.map((h) => ({ p50: h.p50, p99: h.p99, requests: h.requests, cpuUsPerRequest: h.cpuUsPerRequest })),
      ),
      ref(rps(base)),
      [],
      {
        notes: `${fmt(cpuUs(level))} µs CPU/request, p99 ${fmt(median(level.hits.map((h) => h.p99)))} ms${grows(cpuUs(base), cpuUs(level), 'µs CPU/request')}`,
      },
    ),
  );
  ctx.figures.push(
    figure(`scale_store_${level.files}_gc_ms`, `larder gc (CLI), ${n} cached files`, 'ms', series('larder', level.gc), ref(base.gc), [], {
      notes: `first run: ${level.gcOutput}; includes node's start${grows(median(base.gc), median(level.gc), 'ms')}`,
    }),
  );
}

export async function bigStore(ctx: ScaleContext, knobs: ScaleKnobs): Promise<void> {
  const dir = join(ctx.tmp, 'scale-store');
  const files: StoredFile[] = [];
  const levels: Level[] = [];
  for (const target of knobs.storeFiles) {
    const filled = await fillStore(dir, files.length, target, {
      blobBytes: knobs.storeBlobBytes,
      orphanEvery: 100,
      projects: 1000,
      fetchedAt: Date.now() - 86_400_000,
    });
    files.push(...filled.files);
    const level: Level = { files: target, fillMs: filled.ms, startup: [], firstHit: [], hits: [], gc: [], gcOutput: '' };
    ctx.log(`scale store: ${target} cached files (+${filled.orphans} orphan blobs) filled in ${fmt(filled.ms / 1000)} s`);
    await measureLevel(ctx, knobs, dir, files, level);
    ctx.log(
      `  start-up ${fmt(median(level.startup))} ms, first hit ${fmt(median(level.firstHit))} ms, ` +
        `${fmt(median(level.hits.map((h) => h.requestsPerSec)))} req/s (${fmt(median(level.hits.map((h) => h.cpuUsPerRequest)))} µs CPU/req), ` +
        `gc ${fmt(median(level.gc))} ms (${level.gcOutput})`,
    );
    levels.push(level);
    pushFigures(ctx, level, levels[0]!, knobs);
  }
}
