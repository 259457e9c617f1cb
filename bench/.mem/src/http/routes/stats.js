import { collectStats } from '../../index/stats.js';
import { renderStatsHtml, renderStatsJson } from '../../render/stats.js';
export function registerStatsRoutes(router, deps) {
    const stats = (ctx) => {
        const data = collectStats(deps.meta);
        ctx.vary('Accept');
        ctx.set('Cache-Control', `max-age=${deps.config.indexMaxAge}, ${deps.config.readAuth ? 'private' : 'public'}`);
        if (ctx.accepts('text/html', 'application/json') === 'application/json' && !/text\/html/.test(ctx.get('Accept'))) {
            ctx.type = 'application/json';
            ctx.body = renderStatsJson(data);
        }
        else {
            ctx.type = 'text/html; charset=utf-8';
            ctx.body = renderStatsHtml(data);
        }
    };
    router.get('/stats/', stats);
    router.get('/stats', stats);
}
