/**
 * The `backends` section (`BENCH_ONLY=backends`): one larder on the defaults (LMDB + files under its data
 * directory) against one on PostgreSQL + S3 (the test suite's PostgreSQL and S3 servers), both on the
 * bench's upstream, measured in the same run with interleaved samples: warm pages, the small cached
 * wheel, a large file's first download and its cached copy. The figures carry no target.
 */
import { backendsKnobs, expect, findProcess, treeCpuSeconds, type BackendsContext, type Side } from '../backends/common.js';
import { largeFile, S3_NOTE, smallWheel, warmPages } from '../backends/parts.js';
import type { ScaleLarder } from '../scale/common.js';
import { startPostgres } from '../../test/helpers/postgres.js';
import { startS3Server } from '../../test/helpers/s3-server.js';

export async function backendsSection(ctx: BackendsContext): Promise<void> {
  const knobs = backendsKnobs(process.env);
  const big = ctx.upstream.big[0];
  expect(big, 'the backends section needs one of the upstream big files: set BENCH_BIG_N to 1 or more');
  const t0 = performance.now();
  const pg = await startPostgres();
  const t1 = performance.now();
  const s3 = await startS3Server();
  const t2 = performance.now();
  const larders: ScaleLarder[] = [];
  try {
    const databaseUrl = await pg.createDatabase();
    const bucket = await s3.createBucket();
    const s3Pid = findProcess(['s3-server-main'], process.pid);
    const pgPid = findProcess(['postgres', `-p ${pg.port}`]);
    expect(s3Pid && pgPid, `found the S3 server (${s3Pid}) and PostgreSQL (${pgPid}) processes`);
    ctx.log(`backends: PostgreSQL on port ${pg.port} (pid ${pgPid}, ${Math.round(t1 - t0)} ms), S3 ${s3.endpoint} (pid ${s3Pid}, ${Math.round(t2 - t1)} ms)`);

    const fsLarder = await ctx.startLarder('backends-fs');
    larders.push(fsLarder);
    const s3Larder = await ctx.startLarder('backends-s3', false, undefined, {
      overrides: { databaseUrl, blobStore: `s3://${bucket}/bench`, s3Endpoint: s3.endpoint, s3Region: s3.credentials.region },
      env: { AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey },
    });
    larders.push(s3Larder);
    const health = (await (await fetch(`${s3Larder.url}/health`)).json()) as Record<string, unknown>;
    ctx.log(`backends: ${fsLarder.url} on LMDB + files, ${s3Larder.url} on PostgreSQL + S3; its /health: ${JSON.stringify(health)}`);
    await s3.takeLog();

    const sides: [Side, Side] = [
      { name: 'LMDB + files', larder: fsLarder, backendCpu: () => 0, backendRequests: async () => ({}) },
      {
        name: 'PostgreSQL + S3',
        larder: s3Larder,
        backendCpu: () => treeCpuSeconds(s3Pid) + treeCpuSeconds(pgPid),
        async backendRequests() {
          const counts: Record<string, number> = {};
          for (const r of await s3.takeLog()) counts[r.method] = (counts[r.method] ?? 0) + 1;
          return counts;
        },
      },
    ];
    await warmPages(ctx, knobs, sides);
    await smallWheel(ctx, knobs, sides);
    await largeFile(ctx, knobs, sides, big);
    ctx.extra.backends = {
      knobs,
      largeFile: { filename: big.filename, bytes: big.size },
      startMs: { postgres: Math.round(t1 - t0), s3: Math.round(t2 - t1) },
      s3LarderHealth: health,
      note: S3_NOTE,
    };
  } finally {
    for (const l of larders) await l.stop();
    await s3.close();
    await pg.cleanup();
  }
}
