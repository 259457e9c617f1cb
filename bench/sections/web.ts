/**
 * The `web` section: how long the web pages take inside larder (its `Server-Timing: app;dur=…`) on the main
 * larder, whose upstream lists 600,000 projects (BENCH_ROOT_PROJECTS): a search over all of them once the name list is built,
 * and a cached project's page. These were wall-clock assertions in the fast test tier; they are targets here.
 */
import { TimedClient, PIP_ENCODING } from '../lib/http.js';
import { figure, fmt, median, series, type Figure } from '../lib/report.js';

export interface WebContext {
  /** The main larder, pointed at the bench's upstream. */
  larderUrl: string;
  /** The realistic project the upstream serves (its page is cached by the earlier sections, or here). */
  project: string;
  /** How many `pkg-000001`… names the upstream's project list holds. */
  rootProjects: number;
  reps: number;
  log(msg: string): void;
  figures: Figure[];
}

/** Queries over the upstream's `pkg-000001`… names: all of them, some thousands, a few, none, one exact name. */
const QUERIES = ['pkg', 'pkg-12', '99999', 'nothing-like-this', 'pkg-054321'];
const TARGET_MS = 50;

function serverMs(headers: Record<string, string | string[] | undefined>, what: string): number {
  const match = /app;dur=([\d.]+)/.exec(String(headers['server-timing'] ?? ''));
  if (!match) throw new Error(`check failed: ${what} has no Server-Timing app;dur`);
  return Number(match[1]);
}

export async function webSection(ctx: WebContext): Promise<void> {
  const client = new TimedClient(ctx.larderUrl);
  try {
    // The search reads the stored upstream list: make sure larder has it (a warm answer after `root`).
    const root = await client.get('/simple/', { Accept: 'text/html', 'Accept-Encoding': PIP_ENCODING });
    if (root.status !== 200) throw new Error(`check failed: /simple/ answered ${root.status}`);

    const first = await client.get('/search/?q=pkg-000001', {}, true);
    if (first.status !== 200 || !first.body!.toString().includes('pkg-000001')) throw new Error('check failed: the first search finds pkg-000001');
    const build = serverMs(first.headers, 'the first search');

    const inside: number[] = [];
    const outside: number[] = [];
    for (let rep = 0; rep < ctx.reps; rep++) {
      for (const q of QUERIES) {
        const got = await client.get(`/search/?q=${encodeURIComponent(q)}&page=3`);
        if (got.status !== 200) throw new Error(`check failed: search ${q} answered ${got.status}`);
        inside.push(serverMs(got.headers, `search ${q}`));
        outside.push(got.ms);
      }
    }
    ctx.figures.push(
      figure(
        'web_search_ms',
        `search over ${ctx.rootProjects.toLocaleString('en-US')} upstream names (inside larder)`,
        'ms',
        series('larder', inside),
        null,
        [{ kind: 'max', value: TARGET_MS }],
        {
          notes: `${QUERIES.length} queries × ${ctx.reps}, page 3; the first search, which builds the name list, took ${fmt(build)} ms; client-side median ${fmt(median(outside))} ms`,
        },
      ),
    );
    ctx.log(`web search: median ${fmt(median(inside))} ms inside larder (first search ${fmt(build)} ms)`);

    const path = `/project/${ctx.project}/`;
    const prime = await client.get(path);
    if (prime.status !== 200) throw new Error(`check failed: ${path} answered ${prime.status}`);
    const page: number[] = [];
    for (let rep = 0; rep < ctx.reps * 3; rep++) {
      const got = await client.get(path);
      if (got.status !== 200) throw new Error(`check failed: ${path} answered ${got.status}`);
      page.push(serverMs(got.headers, path));
    }
    ctx.figures.push(
      figure('web_project_page_ms', `project page ${path} (inside larder, cached)`, 'ms', series('larder', page), null, [{ kind: 'max', value: TARGET_MS }], {
        notes: `the first request (upstream documents cached by earlier sections, or fetched now) took ${fmt(serverMs(prime.headers, path))} ms`,
      }),
    );
    ctx.log(`web project page: median ${fmt(median(page))} ms inside larder`);
  } finally {
    await client.close();
  }
}
