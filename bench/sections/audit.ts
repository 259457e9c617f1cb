/**
 * The `audit` section (`BENCH_ONLY=audit`): what recording every download costs on the hot path. Two larders
 * on the bench's upstream, one with the download audit on (the default) and one with `LARDER_AUDIT=false`,
 * serve the small cached wheel under `wrk -c32`, sampled alternately; the figures are req/s and larder's CPU
 * per 1,000 requests. Afterwards the audited larder's /metrics must account for every request it served
 * (written or waiting, none lost).
 */
import { backendsKnobs, expect, interleaved, type BackendsContext, type Side } from '../backends/common.js';
import { curlDiscard } from '../lib/http.js';
import { cpuSeconds, sleep } from '../lib/proc.js';
import { figure, fmt, median, series } from '../lib/report.js';
import { wrk, type WrkResult } from '../lib/wrk.js';
import type { ScaleLarder } from '../scale/common.js';

type Sample = WrkResult & { larderCpu: number; cpuMsPer1000: number };

const noBackend = { backendCpu: () => 0, backendRequests: async () => ({}) };

/** The sum of a metric's samples in a Prometheus text page, of those whose labels include `labels` (0 when none). */
function counter(text: string, name: string, labels = ''): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (match?.[1] === name && (match[2] ?? '').includes(labels)) total += Number(match[3]);
  }
  return total;
}

export async function auditSection(ctx: BackendsContext): Promise<void> {
  const knobs = backendsKnobs(process.env);
  const f = ctx.upstream.small;
  const path = `/packages/${f.project}/${encodeURIComponent(f.filename)}`;
  const larders: ScaleLarder[] = [];
  try {
    const on = await ctx.startLarder('audit-on');
    larders.push(on);
    const off = await ctx.startLarder('audit-off', false, undefined, { overrides: { audit: false } });
    larders.push(off);
    const sides: [Side, Side] = [
      { name: 'audit off', larder: off, ...noBackend },
      { name: 'audit on', larder: on, ...noBackend },
    ];
    for (const side of sides) {
      const first = await curlDiscard(`${side.larder.url}${path}`);
      expect(first.status === 200 && first.bytes === f.size, `${side.name}: small wheel downloaded ${JSON.stringify(first)}`);
      const again = await curlDiscard(`${side.larder.url}${path}`);
      expect(again.status === 200 && again.cache === 'hit', `${side.name}: small wheel cached ${JSON.stringify(again)}`);
    }
    const sample = async (side: Side, seconds = knobs.wrkSeconds): Promise<Sample> => {
      const cpu0 = cpuSeconds(side.larder.pid);
      const t0 = performance.now();
      const r = await wrk({ url: `${side.larder.url}${path}`, connections: knobs.connections, threads: knobs.wrkThreads, seconds });
      const cpu = cpuSeconds(side.larder.pid) - cpu0;
      return { ...r, larderCpu: cpu / ((performance.now() - t0) / 1000), cpuMsPer1000: (cpu * 1e6) / r.requests };
    };
    ctx.log(`audit: small cached wheel (${f.size} bytes), wrk -c${knobs.connections} × ${knobs.reps}, audit on and off alternately`);
    for (const side of sides) await sample(side, knobs.warmupSeconds);
    const [offSamples, onSamples] = await interleaved(knobs.reps, sides, (side) => sample(side));

    // Every request the audited larder served is written or waiting to be; none is lost.
    await sleep(1500);
    const metrics = await (await fetch(`${on.url}/metrics`)).text();
    const written = counter(metrics, 'larder_audit_records_total');
    const pending = counter(metrics, 'larder_audit_pending_records');
    const lost = counter(metrics, 'larder_audit_lost_total');
    const served = counter(metrics, 'larder_cache_results_total', 'kind="file",state="hit"');
    expect(lost === 0, `audit on: no record lost (larder_audit_lost_total ${lost})`);
    expect(written + pending >= served - 1 && written > 0, `audit on: ${written} records written + ${pending} waiting for ${served} cache hits served`);

    const slim = (s: Sample) => ({ rps: s.requestsPerSec, p50: s.p50, p99: s.p99, requests: s.requests, larderCpu: Number(s.larderCpu.toFixed(2)) });
    const rps = (xs: Sample[]) => xs.map((x) => x.requestsPerSec);
    const cpuPer1000 = (xs: Sample[]) => xs.map((x) => Number(x.cpuMsPer1000.toFixed(1)));
    const p99 = (xs: Sample[]) => fmt(median(xs.map((x) => x.p99)));
    const notes = `p99 ${p99(onSamples)} ms on vs ${p99(offSamples)} ms off; ${written} records written in batches, ${lost} lost`;
    ctx.figures.push(
      figure(
        'audit_small_wheel_rps',
        `small cached wheel, audit on vs off, ${knobs.connections} conns`,
        'req/s',
        series('audit on', rps(onSamples), onSamples.map(slim)),
        series('audit off', rps(offSamples), offSamples.map(slim)),
        [{ kind: 'minRatio', value: 0.9, label: '0.9' }],
        { notes },
      ),
      figure(
        'audit_small_wheel_cpu',
        'small cached wheel, larder CPU per 1,000 requests, audit on vs off',
        'CPU ms',
        series('audit on', cpuPer1000(onSamples)),
        series('audit off', cpuPer1000(offSamples)),
        [{ kind: 'maxRatio', value: 1.1, label: '1.1' }],
      ),
    );
    ctx.log(
      `  audit on ${fmt(median(rps(onSamples)))} req/s, ${fmt(median(cpuPer1000(onSamples)))} CPU ms / 1,000 req; audit off ${fmt(median(rps(offSamples)))} req/s, ${fmt(median(cpuPer1000(offSamples)))} CPU ms / 1,000 req; ${notes}`,
    );
  } finally {
    for (const larder of larders) await larder.stop();
  }
}
