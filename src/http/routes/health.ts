import type Router from '@koa/router';

export function registerHealthRoutes(router: Router): void {
  router.get('/health', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });
}
