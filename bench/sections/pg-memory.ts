/**
 * The `pgmemory` section (`BENCH_ONLY=pgmemory`): does a node's memory grow with the size of the index
 * it shares? Two databases on the test suite's PostgreSQL, one empty and one holding 100,000 cached-file
 * records and 5,000 private files (`BENCH_PG_CACHED_FILES`, `BENCH_PG_PRIVATE_FILES`); larders started on
 * each in turn (`BENCH_PG_REPS` times, alternating): start-up to listening and RSS when idle, 2 s after.
 */
import { startPostgres } from '../../test/helpers/postgres.js';
import type { BackendsContext } from '../backends/common.js';
import { expect } from '../backends/common.js';
import { fillPostgres } from '../backends/pg-fill.js';
import { rssMiB, sleep } from '../lib/proc.js';
import { figure, fmt, median, series } from '../lib/report.js';

const IDLE_MS = 2000;

export async function pgMemorySection(ctx: BackendsContext): Promise<void> {
  const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
  const fill = { cachedFiles: num('BENCH_PG_CACHED_FILES', 100_000), privateFiles: num('BENCH_PG_PRIVATE_FILES', 5_000) };
  const reps = num('BENCH_PG_REPS', 3);
  const pg = await startPostgres();
  try {
    const empty = await pg.createDatabase();
    const filled = await pg.createDatabase();
    const fillMs = await fillPostgres(filled, fill);
    ctx.log(`pgmemory: filled with ${fill.cachedFiles} cached-file records and ${fill.privateFiles} private files in ${fmt(fillMs / 1000)} s`);
    const samples = { empty: { rss: [] as number[], start: [] as number[] }, filled: { rss: [] as number[], start: [] as number[] } };
    let pageMs = Number.NaN;
    for (let rep = 0; rep < reps; rep++) {
      const order = rep % 2 === 0 ? (['empty', 'filled'] as const) : (['filled', 'empty'] as const);
      for (const which of order) {
        const t0 = performance.now();
        const larder = await ctx.startLarder(`pgmemory-${which}-${rep}`, false, undefined, { overrides: { databaseUrl: which === 'empty' ? empty : filled } });
        samples[which].start.push(performance.now() - t0);
        try {
          await sleep(IDLE_MS);
          samples[which].rss.push(rssMiB(larder.pid) ?? Number.NaN);
          if (which === 'filled' && rep === 0) {
            const t1 = performance.now();
            const page = await fetch(`${larder.url}/simple/internal-7/`, { headers: { Accept: 'application/vnd.pypi.simple.v1+json' } });
            const body = (await page.json()) as { files?: unknown[] };
            pageMs = performance.now() - t1;
            expect(page.status === 200 && body.files?.length === 5, `a private project page from the filled database lists its 5 files (got ${page.status})`);
          }
        } finally {
          await larder.stop();
        }
      }
    }
    const growth = median(samples.filled.rss) - median(samples.empty.rss);
    const records = `${fill.cachedFiles.toLocaleString('en-US')} cached-file records + ${fill.privateFiles.toLocaleString('en-US')} private files`;
    ctx.figures.push(
      figure(
        'pg_rss_idle_growth_mib',
        `RSS idle on PostgreSQL with ${records}, over an empty database's`,
        'MiB',
        series('filled', samples.filled.rss),
        series('empty', samples.empty.rss),
        [{ kind: 'max', value: 60 }],
        {
          value: growth,
          notes: `idle RSS ${fmt(median(samples.filled.rss))} MiB filled, ${fmt(median(samples.empty.rss))} MiB empty; filled in ${fmt(fillMs / 1000)} s`,
        },
      ),
      figure(
        'pg_startup_filled_ms',
        `start-up to listening on PostgreSQL with ${records}`,
        'ms',
        series('filled', samples.filled.start),
        series('empty', samples.empty.start),
        [{ kind: 'maxRatio', value: 1.25 }],
        {
          notes: `includes Node's start; first private project page from the filled database in ${fmt(pageMs)} ms`,
        },
      ),
    );
    ctx.extra.pgMemory = { fill, fillMs: Math.round(fillMs), samples };
  } finally {
    await pg.cleanup();
  }
}
