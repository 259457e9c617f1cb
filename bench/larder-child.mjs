// larder as the bench runs it: `node bench/larder-child.mjs <module root> <data dir> <upstream url> [<file origin>]`.
// <module root> is the compiled src/ (bench/.build/src, plain node, no loader thread) or, under
// `node --import tsx`, the TypeScript src/ itself. Prints `LARDER_URL <url>` once listening; SIGTERM
// closes larder and exits normally, so `--cpu-prof` profiles get written; SIGUSR2 prints memoryUsage().
// BENCH_LARDER_OVERRIDES (a JSON object of config keys) is merged over the bench's own settings.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, data, upstream, fileOrigin] = process.argv.slice(2);
if (!root || !data || !upstream) {
  process.stderr.write('usage: larder-child.mjs <module root> <data dir> <upstream url> [<file origin>]\n');
  process.exit(2);
}
const load = (file) => import(pathToFileURL(resolve(join(root, file))).href);
const { createLarder } = await load('app.js');
const { loadConfig } = await load('config/load.js');

const config = loadConfig({
  env: {},
  overrides: {
    host: '127.0.0.1',
    port: 0,
    data,
    upstream,
    upstreamJsonApi: '' /* derived from upstream */,
    fileHosts: fileOrigin ? [fileOrigin] : [],
    logLevel: process.env.BENCH_LARDER_LOG ?? 'warn',
    ...JSON.parse(process.env.BENCH_LARDER_OVERRIDES || '{}'),
  },
});
const larder = await createLarder(config);
const url = await larder.listen();
process.stdout.write(`LARDER_URL ${url}\n`);

let closing = false;
const shutdown = () => {
  if (closing) return;
  closing = true;
  larder.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', shutdown);
// The bench asks for V8's view of memory with SIGUSR2 (read from stderr).
// Under --expose-gc it also reports the figures after a full GC (what is retained rather than garbage).
const usage = () => {
  const m = process.memoryUsage();
  return { rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
};
process.on('SIGUSR2', () => {
  const report = usage();
  if (typeof globalThis.gc === 'function') {
    globalThis.gc();
    report.afterGc = usage();
  }
  process.stderr.write(`LARDER_MEM ${JSON.stringify(report)}\n`);
});
process.on('SIGINT', shutdown);
