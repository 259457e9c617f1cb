/**
 * The backends section's measurements, each on both larders in the same run, samples interleaved: a warm
 * project page (JSON and HTML, gzip), the small cached wheel (wrk), a large file's first (cold) download
 * and its cached copy streamed with curl and read in 64 KiB ranges (wrk). The PostgreSQL + S3 larder is
 * the figure, the LMDB + files one its reference. Each part first checks that every larder answers from
 * its cache with the right bytes.
 */
import type { FileInfo } from '../lib/file-info.js';
import { curlDiscard, HTML_ACCEPT, PIP_ACCEPT, PIP_ENCODING } from '../lib/http.js';
import { cpuSeconds } from '../lib/proc.js';
import { figure, fmt, median, series } from '../lib/report.js';
import { wrk, type WrkResult } from '../lib/wrk.js';
import { digestOf, expect, filesOfSize, interleaved, type BackendsContext, type BackendsKnobs, type Side } from './common.js';

/** Said in every figure's notes: the S3 side is measured against a test server, not a real object store. */
export const S3_NOTE =
  'S3 = s3rver 3.7 (JavaScript, objects in files) behind a SigV4-checking proxy, in one Node process on the same 2 cores as larder and the load: a floor, not what AWS or MinIO would give';

interface Sample extends WrkResult {
  /** Cores the larder used during the sample. */
  larderCpu: number;
  /** Cores its backend processes (s3rver, PostgreSQL) used. */
  backendCpu: number;
}

const larderPath = (f: FileInfo) => `/packages/${f.project}/${encodeURIComponent(f.filename)}`;

async function wrkSample(side: Side, url: string, headers: Record<string, string>, knobs: BackendsKnobs, seconds = knobs.wrkSeconds): Promise<Sample> {
  const cpu0 = cpuSeconds(side.larder.pid);
  const backend0 = side.backendCpu();
  const t0 = performance.now();
  const r = await wrk({ url, connections: knobs.connections, threads: knobs.wrkThreads, seconds, headers });
  const wall = (performance.now() - t0) / 1000;
  expect(r.non2xx === 0, `${side.name}: ${r.non2xx} answers outside 2xx/3xx from ${url}`);
  return { ...r, larderCpu: (cpuSeconds(side.larder.pid) - cpu0) / wall, backendCpu: (side.backendCpu() - backend0) / wall };
}

const slim = (s: Sample) => ({
  rps: s.requestsPerSec,
  p50: s.p50,
  p99: s.p99,
  requests: s.requests,
  larderCpu: Number(s.larderCpu.toFixed(2)),
  larderCpuUsPerRequest: Number(((s.larderCpu * 1e6) / s.requestsPerSec).toFixed(1)),
  backendCpu: Number(s.backendCpu.toFixed(2)),
});

/** `p99 1.2 ms vs 0.9 ms; larder CPU 60 vs 50 µs/req; backends 0.40 cores` */
function wrkNotes(s3: Sample[], fs: Sample[]): string {
  const us = (xs: Sample[]) => fmt(median(xs.map((x) => (x.larderCpu * 1e6) / x.requestsPerSec)));
  return (
    `p99 ${fmt(median(s3.map((x) => x.p99)))} ms vs ${fmt(median(fs.map((x) => x.p99)))} ms; larder CPU ${us(s3)} vs ${us(fs)} µs/req; ` +
    `s3rver + PostgreSQL ${fmt(median(s3.map((x) => x.backendCpu)))} cores. ${S3_NOTE}`
  );
}

/** Warm-up of both sides, then interleaved wrk samples; the figure is PostgreSQL + S3 against LMDB + files. */
async function wrkFigure(
  ctx: BackendsContext,
  knobs: BackendsKnobs,
  sides: [Side, Side],
  path: string,
  headers: Record<string, string>,
  id: string,
  name: string,
) {
  for (const side of sides) await wrkSample(side, `${side.larder.url}${path}`, headers, knobs, knobs.warmupSeconds);
  for (const side of sides) await side.backendRequests();
  const perRequest: number[] = [];
  const [fs, s3] = await interleaved(knobs.reps, sides, async (side) => {
    const sample = await wrkSample(side, `${side.larder.url}${path}`, headers, knobs);
    const requests = await side.backendRequests();
    if (side === sides[1]) perRequest.push(Object.values(requests).reduce((a, b) => a + b, 0) / sample.requests);
    return sample;
  });
  const rps = (xs: Sample[]) => xs.map((x) => x.requestsPerSec);
  const notes = `S3 requests per request ${fmt(median(perRequest))}; ${wrkNotes(s3, fs)}`;
  ctx.figures.push(figure(id, name, 'req/s', series(sides[1].name, rps(s3), s3.map(slim)), series(sides[0].name, rps(fs), fs.map(slim)), [], { notes }));
  ctx.log(`  ${sides[1].name} ${fmt(median(rps(s3)))} req/s, ${sides[0].name} ${fmt(median(rps(fs)))} req/s; ${notes.split('. S3 =')[0]}`);
}

export async function warmPages(ctx: BackendsContext, knobs: BackendsKnobs, sides: [Side, Side]): Promise<void> {
  const path = `/simple/${ctx.upstream.page}/`;
  for (const v of [
    { id: 'json', label: 'JSON', accept: PIP_ACCEPT, type: 'application/vnd.pypi.simple.v1+json' },
    { id: 'html', label: 'HTML', accept: HTML_ACCEPT, type: 'text/html' },
  ]) {
    const headers = { Accept: v.accept, 'Accept-Encoding': PIP_ENCODING };
    for (const side of sides) {
      await curlDiscard(`${side.larder.url}${path}`, headers);
      const hit = await curlDiscard(`${side.larder.url}${path}`, headers);
      expect(hit.status === 200 && hit.cache === 'hit', `${side.name}: warm ${v.label} page ${JSON.stringify(hit)}`);
    }
    ctx.log(`backends: warm ${v.label} page, wrk -c${knobs.connections} -d${knobs.wrkSeconds}s × ${knobs.reps} each`);
    await wrkFigure(ctx, knobs, sides, path, headers, `backends_warm_${v.id}_rps`, `warm project page ${v.label} (gzip), ${knobs.connections} conns`);
  }
}

/** First download (a miss), then a hit whose bytes hash to the upstream's sha256. */
async function cacheAndCheck(side: Side, f: FileInfo): Promise<{ mbps: number; larderCpu: number; backendCpu: number; requests: Record<string, number> }> {
  const url = `${side.larder.url}${larderPath(f)}`;
  await side.backendRequests();
  const cpu0 = cpuSeconds(side.larder.pid);
  const backend0 = side.backendCpu();
  const first = await curlDiscard(url, {}, 300_000);
  expect(first.status === 200 && first.bytes === f.size && first.cache === 'miss', `${side.name}: first download of ${f.filename} ${JSON.stringify(first)}`);
  const result = {
    mbps: f.size / 1e6 / first.seconds,
    larderCpu: (cpuSeconds(side.larder.pid) - cpu0) / first.seconds,
    backendCpu: (side.backendCpu() - backend0) / first.seconds,
    requests: await side.backendRequests(),
  };
  const again = await digestOf(url);
  expect(again.status === 200 && again.cache === 'hit', `${side.name}: ${f.filename} is a cache hit once downloaded (${again.status} ${again.cache})`);
  expect(again.sha256 === f.sha256 && again.bytes === f.size, `${side.name}: the cached ${f.filename} has the upstream's bytes and sha256`);
  return result;
}

export async function smallWheel(ctx: BackendsContext, knobs: BackendsKnobs, sides: [Side, Side]): Promise<void> {
  const f = ctx.upstream.small;
  for (const side of sides) await cacheAndCheck(side, f);
  ctx.log(`backends: small cached wheel (${f.size} bytes), wrk -c${knobs.connections} × ${knobs.reps} each`);
  await wrkFigure(
    ctx,
    knobs,
    sides,
    larderPath(f),
    {},
    'backends_small_wheel_rps',
    `small cached wheel (${(f.size / 1000).toFixed(0)} kB), ${knobs.connections} conns`,
  );
}

/**
 * The large file: its first download through each larder once (the LMDB + files larder first), checks of
 * where each larder keeps it, then `reps` interleaved curl streams of the cached copy.
 */
export async function largeFile(ctx: BackendsContext, knobs: BackendsKnobs, sides: [Side, Side], f: FileInfo): Promise<void> {
  const size = `${(f.size / 1e6).toFixed(0)} MB`;
  ctx.log(`backends: first download of ${f.filename} (${size}) through each larder`);
  const cold = [await cacheAndCheck(sides[0], f), await cacheAndCheck(sides[1], f)] as const;
  ctx.figures.push(
    figure(
      'backends_first_download_mbps',
      `first download of a ${size} file (one sample each)`,
      'MB/s',
      series(sides[1].name, [cold[1].mbps], [cold[1]]),
      series(sides[0].name, [cold[0].mbps], [cold[0]]),
      [],
      {
        notes: `larder CPU ${fmt(cold[1].larderCpu)} vs ${fmt(cold[0].larderCpu)} cores; s3rver + PostgreSQL ${fmt(cold[1].backendCpu)} cores; S3 requests ${JSON.stringify(cold[1].requests)}. ${S3_NOTE}`,
      },
    ),
  );
  ctx.log(`  ${sides[1].name} ${fmt(cold[1].mbps)} MB/s, ${sides[0].name} ${fmt(cold[0].mbps)} MB/s; S3 requests ${JSON.stringify(cold[1].requests)}`);

  // Each larder serves the file from its own backend: a local copy for the files larder, none for the S3 one.
  expect(filesOfSize(sides[0].larder.data, f.size).length > 0, `${sides[0].name}: a copy of ${f.filename} is in its data directory`);
  expect(filesOfSize(sides[1].larder.data, f.size).length === 0, `${sides[1].name}: no copy of ${f.filename} in its data directory`);
  await sides[1].backendRequests();
  await curlDiscard(`${sides[1].larder.url}${larderPath(f)}`, {}, 300_000);
  const gets = (await sides[1].backendRequests()).GET ?? 0;
  expect(gets >= 1, `${sides[1].name}: a cached download is read from S3 (${gets} GETs)`);

  const stream = async (side: Side) => {
    const cpu0 = cpuSeconds(side.larder.pid);
    const backend0 = side.backendCpu();
    const r = await curlDiscard(`${side.larder.url}${larderPath(f)}`, {}, 300_000);
    expect(r.status === 200 && r.bytes === f.size && r.cache === 'hit', `${side.name}: cached ${f.filename} ${JSON.stringify(r)}`);
    return {
      mbps: f.size / 1e6 / r.seconds,
      larderCpu: Number(((cpuSeconds(side.larder.pid) - cpu0) / r.seconds).toFixed(2)),
      backendCpu: Number(((side.backendCpu() - backend0) / r.seconds).toFixed(2)),
    };
  };
  await stream(sides[0]);
  const [fs, s3] = await interleaved(knobs.reps, sides, stream);
  const mbps = (xs: { mbps: number }[]) => xs.map((x) => x.mbps);
  ctx.figures.push(
    figure(
      'backends_cached_large_mbps',
      `cached ${size} file, 1 stream (curl)`,
      'MB/s',
      series(sides[1].name, mbps(s3), s3),
      series(sides[0].name, mbps(fs), fs),
      [],
      {
        notes: `larder CPU ${fmt(median(s3.map((x) => x.larderCpu)))} vs ${fmt(median(fs.map((x) => x.larderCpu)))} cores; s3rver + PostgreSQL ${fmt(median(s3.map((x) => x.backendCpu)))} cores. ${S3_NOTE}`,
      },
    ),
  );
  ctx.log(`backends: cached ${size}: ${sides[1].name} ${fmt(median(mbps(s3)))} MB/s, ${sides[0].name} ${fmt(median(mbps(fs)))} MB/s`);

  // Too large for larder's in-memory cache of small files: every request is a (ranged) read of the backend.
  const range = { Range: 'bytes=0-65535' };
  for (const side of sides) {
    const r = await curlDiscard(`${side.larder.url}${larderPath(f)}`, range);
    expect(r.status === 206 && r.bytes === 65_536 && r.cache === 'hit', `${side.name}: a 64 KiB range of the cached ${f.filename} ${JSON.stringify(r)}`);
  }
  ctx.log(`backends: 64 KiB ranges of the cached ${size} file, wrk -c${knobs.connections} × ${knobs.reps} each`);
  await wrkFigure(
    ctx,
    knobs,
    sides,
    larderPath(f),
    range,
    'backends_range_rps',
    `64 KiB Range requests of the cached ${size} file, ${knobs.connections} conns`,
  );
}
