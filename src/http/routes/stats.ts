/** GET /stats/ (and /stats) as JSON; browsers asking for HTML get the web page (web/page-routes.ts) instead. */
import type { Routes } from '../route-group.js';
import type { Context } from 'koa';
import { renderStatsJson } from '../../render/stats.js';
import type { HttpDeps } from '../deps.js';

/** JSON only for a client that asks for it and not for HTML; a browser's `*\/*` gets the page. */
export function wantsStatsJson(ctx: Context): boolean {
  return ctx.accepts('text/html', 'application/json') === 'application/json' && !/text\/html/.test(ctx.get('Accept'));
}

export function registerStatsRoutes(router: Routes, deps: HttpDeps): void {
  const stats = async (ctx: Context) => {
    ctx.vary('Accept');
    ctx.set('Cache-Control', `max-age=${deps.config.indexMaxAge}, ${deps.config.readAuth ? 'private' : 'public'}`);
    ctx.type = 'application/json';
    ctx.body = renderStatsJson(await deps.stats());
  };
  router.get('/stats/', stats);
  router.get('/stats', stats);
}
