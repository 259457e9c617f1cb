/**
 * Scale figures for many concurrent cold downloads of different files (e.g. 200 × 1 MB wheels, and a tenth
 * of that to show the growth): wall time, aggregate MB/s, slowest single download and larder's peak RSS,
 * against the same files fetched straight from the upstream at the same concurrency. Each sample runs on a
 * fresh larder (empty data directory) whose page for the project is cached first; afterwards every file must
 * be a cache hit with the right sha256.
 */
import { createHash } from 'node:crypto';
import { Pool } from 'undici';
import { cpuSeconds, peakRssMiB, rssMiB, sleep } from '../lib/proc.js';
import { PIP_ACCEPT, TimedClient } from '../lib/http.js';
import { figure, fmt, median, series } from '../lib/report.js';
import type { FileInfo } from '../lib/file-info.js';
import { expect, growthNote, type ScaleContext, type ScaleKnobs, type ScaleLarder } from './common.js';

interface Fetched {
  status: number;
  bytes: number;
  ms: number;
  cache: string;
  sha256: string | null;
}

interface Burst {
  wallMs: number;
  slowestMs: number;
  mbPerSec: number;
  results: Fetched[];
}

interface Sample {
  larder: Burst;
  upstream: Burst;
  /** Highest VmRSS seen (sampled every 20 ms) during larder's burst, and VmHWM after it, MiB. */
  peakRss: number;
  hwm: number;
  cpuSeconds: number;
}

/** GETs every path at once, one connection each; `hash` also computes each body's sha256. */
async function burst(origin: string, paths: string[], hash = false): Promise<Burst> {
  const pool = new Pool(origin, { connections: paths.length, pipelining: 1, headersTimeout: 120_000, bodyTimeout: 120_000 });
  try {
    const t0 = performance.now();
    const results = await Promise.all(
      paths.map(async (path): Promise<Fetched> => {
        const start = performance.now();
        const res = await pool.request({ method: 'GET', path });
        const digest = hash ? createHash('sha256') : null;
        let bytes = 0;
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          bytes += chunk.length;
          digest?.update(chunk);
        }
        const cache = res.headers['x-larder-cache'];
        return {
          status: res.statusCode,
          bytes,
          ms: performance.now() - start,
          cache: typeof cache === 'string' ? cache : '',
          sha256: digest?.digest('hex') ?? null,
        };
      }),
    );
    const wallMs = performance.now() - t0;
    const bytes = results.reduce((sum, r) => sum + r.bytes, 0);
    return { wallMs, slowestMs: Math.max(...results.map((r) => r.ms)), mbPerSec: bytes / 1e6 / (wallMs / 1000), results };
  } finally {
    await pool.close();
  }
}

const upstreamPath = (f: FileInfo) => `/files/${f.sha256.slice(0, 2)}/${f.sha256}/${encodeURIComponent(f.filename)}`;
const larderPath = (f: FileInfo) => `/packages/${f.project}/${encodeURIComponent(f.filename)}`;

/** Every file is now served from larder's cache, with the upstream's sha256 (the last records may take a moment). */
async function verifyCached(larder: ScaleLarder, files: FileInfo[]): Promise<void> {
  let pending = files;
  for (let attempt = 0; pending.length > 0; attempt++) {
    const again = await burst(larder.url, pending.map(larderPath), true);
    const missing: FileInfo[] = [];
    again.results.forEach((r, i) => {
      const f = pending[i]!;
      expect(r.status === 200 && r.sha256 === f.sha256, `${f.filename} from larder afterwards: ${r.status}, sha256 ${r.sha256}`);
      if (r.cache !== 'hit') missing.push(f);
    });
    expect(missing.length === 0 || attempt < 10, `${missing.length} files are not cached after the downloads, e.g. ${missing[0]?.filename}`);
    pending = missing;
    if (pending.length) await sleep(200);
  }
}

async function sample(ctx: ScaleContext, files: FileInfo[], project: string, label: string, larderFirst: boolean): Promise<Sample> {
  const larder = await ctx.startLarder(label);
  try {
    const client = new TimedClient(larder.url);
    const page = await client.get(`/simple/${project}/`, { accept: PIP_ACCEPT }).finally(() => client.close());
    expect(page.status === 200, `page of ${project}: ${page.status}`);
    const viaUpstream = () => burst(ctx.upstream.fileOrigin, files.map(upstreamPath));
    const viaLarder = async () => {
      let peak = rssMiB(larder.pid) ?? 0;
      const timer = setInterval(() => (peak = Math.max(peak, rssMiB(larder.pid) ?? 0)), 20);
      const cpu0 = cpuSeconds(larder.pid);
      try {
        const b = await burst(larder.url, files.map(larderPath));
        return { b, peak: Math.max(peak, rssMiB(larder.pid) ?? 0), cpu: cpuSeconds(larder.pid) - cpu0 };
      } finally {
        clearInterval(timer);
      }
    };
    let up: Burst;
    let l: Awaited<ReturnType<typeof viaLarder>>;
    if (larderFirst) {
      l = await viaLarder();
      up = await viaUpstream();
    } else {
      up = await viaUpstream();
      l = await viaLarder();
    }
    for (const [i, r] of l.b.results.entries()) {
      const f = files[i]!;
      expect(r.status === 200 && r.bytes === f.size && r.cache === 'miss', `larder first ${f.filename}: ${r.status}, ${r.bytes} bytes, ${r.cache}`);
    }
    for (const [i, r] of up.results.entries()) expect(r.status === 200 && r.bytes === files[i]!.size, `upstream ${files[i]!.filename}: ${r.status}`);
    const hwm = peakRssMiB(larder.pid) ?? 0;
    await verifyCached(larder, files);
    return { larder: l.b, upstream: up, peakRss: l.peak, hwm, cpuSeconds: l.cpu };
  } finally {
    await larder.stop();
  }
}

export async function concurrentDownloads(ctx: ScaleContext, knobs: ScaleKnobs, project: string, all: FileInfo[]): Promise<void> {
  if (all.length === 0) return;
  const counts = [...new Set([Math.max(1, Math.round(all.length / 10)), all.length])];
  const results = new Map<number, Sample[]>();
  for (const n of counts) {
    const files = all.slice(0, n);
    const samples: Sample[] = [];
    for (let rep = 0; rep < knobs.downloadReps; rep++) samples.push(await sample(ctx, files, project, `scale-downloads-${n}-${rep}`, rep % 2 === 1));
    results.set(n, samples);
    const m = (f: (s: Sample) => number) => fmt(median(samples.map(f)));
    ctx.log(
      `scale downloads: ${n} × ${fmt(files[0]!.size / 1e6)} MB at once: larder ${m((s) => s.larder.wallMs)} ms (${m((s) => s.larder.mbPerSec)} MB/s, slowest ${m((s) => s.larder.slowestMs)} ms, ` +
        `peak RSS ${m((s) => s.peakRss)} MiB, ${m((s) => s.cpuSeconds)} CPU s), upstream direct ${m((s) => s.upstream.wallMs)} ms (${m((s) => s.upstream.mbPerSec)} MB/s)`,
    );
  }
  const base = counts[0]!;
  for (const n of counts) {
    const samples = results.get(n)!;
    const size = `${n} × ${fmt(all[0]!.size / 1e6)} MB`;
    const grows = (f: (s: Sample) => number, unit: string) =>
      n === base ? '' : `; ${growthNote(median(results.get(base)!.map(f)), median(samples.map(f)), base, n, unit, 'downloads')}`;
    const pair = (id: string, name: string, unit: string, l: (s: Sample) => number, u: (s: Sample) => number, notes: string) =>
      ctx.figures.push(
        figure(
          `scale_downloads_${n}_${id}`,
          `${size} cold downloads at once, ${name}`,
          unit,
          series('larder', samples.map(l)),
          series('upstream direct', samples.map(u)),
          [],
          {
            notes,
          },
        ),
      );
    pair(
      'wall_ms',
      'wall time',
      'ms',
      (s) => s.larder.wallMs,
      (s) => s.upstream.wallMs,
      `every file verified cached (hit) with its sha256 afterwards${grows((s) => s.larder.wallMs, 'ms')}`,
    );
    pair(
      'mbps',
      'aggregate',
      'MB/s',
      (s) => s.larder.mbPerSec,
      (s) => s.upstream.mbPerSec,
      `larder CPU ${fmt(median(samples.map((s) => s.cpuSeconds)))} s per burst`,
    );
    pair(
      'slowest_ms',
      'slowest single download',
      'ms',
      (s) => s.larder.slowestMs,
      (s) => s.upstream.slowestMs,
      `median single ${fmt(median(samples.map((s) => median(s.larder.results.map((r) => r.ms)))))} ms${grows((s) => s.larder.slowestMs, 'ms')}`,
    );
    ctx.figures.push(
      figure(
        `scale_downloads_${n}_peak_rss_mib`,
        `${size} cold downloads at once, larder peak RSS`,
        'MiB',
        series(
          'larder',
          samples.map((s) => s.peakRss),
        ),
        null,
        [],
        {
          notes: `VmRSS sampled every 20 ms on a fresh larder; VmHWM ${fmt(median(samples.map((s) => s.hwm)))} MiB${grows((s) => s.peakRss, 'MiB')}`,
        },
      ),
    );
  }
}
