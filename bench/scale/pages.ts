/**
 * Scale figures for big project pages (e.g. 2,000 and 20,000 files): the first request through larder
 * against the upstream's own time for the same page, and warm gzip requests (wrk), per page size and
 * format, with how each grows per tenfold files in the notes.
 */
import { HTML_ACCEPT, PIP_ACCEPT, PIP_ENCODING, TimedClient } from '../lib/http.js';
import { cpuSeconds } from '../lib/proc.js';
import { figure, fmt, median, series } from '../lib/report.js';
import { wrk, type WrkResult } from '../lib/wrk.js';
import { expect, growthNote, type ScaleContext, type ScaleKnobs, type ScaleLarder } from './common.js';
import type { ScalePage } from './fixtures.js';

const FORMATS = [
  { kind: 'json', label: 'JSON', accept: PIP_ACCEPT, type: 'application/vnd.pypi.simple.v1+json' },
  { kind: 'html', label: 'HTML', accept: HTML_ACCEPT, type: 'text/html' },
] as const;

interface Cold {
  larder: number[];
  upstream: number[];
}

interface Warm {
  samples: (WrkResult & { cpuUsPerRequest: number })[];
  gzipBytes: number;
  bytes: number;
}

const pagePath = (project: string) => `/simple/${project}/`;

/** First requests of never-seen pages, alternating which side goes first, on warm keep-alive connections. */
async function coldSamples(ctx: ScaleContext, larder: ScaleLarder, names: string[], accept: string, type: string): Promise<Cold> {
  const lc = new TimedClient(larder.url);
  const uc = new TimedClient(ctx.upstream.origin);
  const headers = { accept, 'accept-encoding': PIP_ENCODING };
  const result: Cold = { larder: [], upstream: [] };
  try {
    await lc.get('/health');
    await uc.get(pagePath(ctx.upstream.page), headers);
    for (const [i, name] of names.entries()) {
      const viaUpstream = async () => {
        const u = await uc.get(pagePath(name), headers);
        expect(u.status === 200, `upstream ${name}: ${u.status}`);
        result.upstream.push(u.ms);
      };
      const viaLarder = async () => {
        const l = await lc.get(pagePath(name), headers);
        expect(
          l.status === 200 && l.headers['x-larder-cache'] === 'miss' && String(l.headers['content-type']).startsWith(type),
          `larder first ${name}: ${l.status} ${l.headers['x-larder-cache']} ${l.headers['content-type']}`,
        );
        result.larder.push(l.ms);
      };
      if (i % 2 === 0) {
        await viaUpstream();
        await viaLarder();
      } else {
        await viaLarder();
        await viaUpstream();
      }
    }
  } finally {
    await lc.close();
    await uc.close();
  }
  return result;
}

async function warmSamples(larder: ScaleLarder, knobs: ScaleKnobs, name: string, accept: string): Promise<Warm> {
  const client = new TimedClient(larder.url);
  const headers = { Accept: accept, 'Accept-Encoding': PIP_ENCODING };
  let gzipBytes = 0;
  let bytes = 0;
  try {
    const plain = await client.get(pagePath(name), { accept });
    const gz = await client.get(pagePath(name), headers);
    expect(gz.headers['content-encoding'] === 'gzip' && gz.headers['x-larder-cache'] === 'hit', `warm ${name} is a gzip cache hit`);
    bytes = plain.bytes;
    gzipBytes = gz.bytes;
  } finally {
    await client.close();
  }
  const url = `${larder.url}${pagePath(name)}`;
  const options = { url, connections: knobs.connections, threads: knobs.wrkThreads, headers };
  await wrk({ ...options, seconds: knobs.warmupSeconds });
  const samples: Warm['samples'] = [];
  for (let i = 0; i < knobs.reps; i++) {
    const cpu0 = cpuSeconds(larder.pid);
    const r = await wrk({ ...options, seconds: knobs.wrkSeconds });
    samples.push({ ...r, cpuUsPerRequest: Number((((cpuSeconds(larder.pid) - cpu0) * 1e6) / r.requests).toFixed(1)) });
  }
  return { samples, gzipBytes, bytes };
}

export async function bigPages(ctx: ScaleContext, knobs: ScaleKnobs, pages: ScalePage[]): Promise<void> {
  const larder = await ctx.startLarder('scale-pages');
  try {
    // Unmeasured first requests of both formats, so that larder's miss path is not JIT-cold for the first sample.
    const warmup = new TimedClient(larder.url);
    for (const [i, name] of ctx.upstream.coldWarmup.entries())
      await warmup.get(pagePath(name), { accept: FORMATS[i % 2]!.accept, 'accept-encoding': PIP_ENCODING });
    await warmup.close();

    for (const format of FORMATS) {
      const cold = new Map<number, Cold>();
      const warm = new Map<number, Warm>();
      for (const page of pages) {
        const names = page[format.kind];
        const c = await coldSamples(ctx, larder, names, format.accept, format.type);
        cold.set(page.files, c);
        const w = await warmSamples(larder, knobs, names[0]!, format.accept);
        warm.set(page.files, w);
        ctx.log(
          `scale page ${page.files} files ${format.label}: first ${fmt(median(c.larder))} ms (upstream ${fmt(median(c.upstream))} ms); ` +
            `warm ${fmt(median(w.samples.map((s) => s.requestsPerSec)))} req/s, ${fmt(median(w.samples.map((s) => s.cpuUsPerRequest)))} µs CPU/req, ` +
            `${w.bytes} bytes (${w.gzipBytes} gzip)`,
        );
      }
      const first = pages[0]!.files;
      for (const page of pages) {
        const c = cold.get(page.files)!;
        const w = warm.get(page.files)!;
        const added = median(c.larder) - median(c.upstream);
        const grows = page.files !== first;
        const c0 = cold.get(first)!;
        const w0 = warm.get(first)!;
        const coldNote = grows
          ? `; larder first ${growthNote(median(c0.larder), median(c.larder), first, page.files, 'ms')}; ` +
            `added ${growthNote(median(c0.larder) - median(c0.upstream), added, first, page.files, 'ms')}; ` +
            `upstream ${growthNote(median(c0.upstream), median(c.upstream), first, page.files, 'ms')}`
          : '';
        ctx.figures.push(
          figure(
            `scale_page_${page.files}_cold_${format.kind}_added_ms`,
            `${page.files.toLocaleString('en-US')}-file page ${format.label}, first, added to upstream`,
            'ms',
            series('larder', c.larder),
            series('upstream direct', c.upstream),
            [],
            {
              value: added,
              notes: `value = median(larder first request) − median(upstream direct); ${w.bytes} bytes${coldNote}`,
            },
          ),
        );
        const rps = (x: Warm) => median(x.samples.map((s) => s.requestsPerSec));
        const cpu = (x: Warm) => median(x.samples.map((s) => s.cpuUsPerRequest)) / 1000;
        const warmNote = grows
          ? `; CPU per request ${growthNote(cpu(w0), cpu(w), first, page.files, 'ms')}; req/s ${growthNote(rps(w0), rps(w), first, page.files, 'req/s')}`
          : '';
        ctx.figures.push(
          figure(
            `scale_page_${page.files}_warm_${format.kind}_rps`,
            `${page.files.toLocaleString('en-US')}-file page ${format.label}, warm (gzip), ${knobs.connections} conns`,
            'req/s',
            series(
              'larder',
              w.samples.map((s) => s.requestsPerSec),
              w.samples.map((s) => ({ p50: s.p50, p99: s.p99, requests: s.requests, cpuUsPerRequest: s.cpuUsPerRequest })),
            ),
            null,
            [],
            {
              notes:
                `p50 ${fmt(median(w.samples.map((s) => s.p50)))} ms, p99 ${fmt(median(w.samples.map((s) => s.p99)))} ms, ` +
                `${fmt(cpu(w))} ms CPU/request, ${w.gzipBytes} bytes gzip${warmNote}`,
            },
          ),
        );
      }
    }
  } finally {
    await larder.stop();
  }
}
