/**
 * The `scale` section (`BENCH_ONLY=scale`): how larder's costs grow with a project's file count, with the
 * number of cached files in the store, and with the number of concurrent cold downloads. Each part starts
 * its own larders; the figures carry no target, and their notes say how each cost grows per tenfold.
 */
import { scaleKnobs, type ScaleContext } from '../scale/common.js';
import { concurrentDownloads } from '../scale/downloads.js';
import { bigPages } from '../scale/pages.js';
import { bigStore } from '../scale/store.js';

export async function scaleSection(ctx: ScaleContext): Promise<void> {
  const fixtures = ctx.upstream.scale;
  if (!fixtures) throw new Error('the upstream built no scale fixtures (BENCH_ONLY must name scale)');
  const knobs = scaleKnobs(process.env);
  ctx.extra.scale = { knobs, fixturesBuildMs: Math.round(fixtures.buildMs) };
  const parts = (process.env.BENCH_SCALE_PARTS ?? 'pages,store,downloads').split(',').map((s) => s.trim());
  if (parts.includes('pages')) await bigPages(ctx, knobs, fixtures.pages);
  if (parts.includes('store')) await bigStore(ctx, knobs);
  if (parts.includes('downloads')) await concurrentDownloads(ctx, knobs, fixtures.downloadProject, fixtures.downloads);
}
