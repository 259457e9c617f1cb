export function registerHealthRoutes(router) {
    router.get('/health', (ctx) => {
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { status: 'ok' };
    });
}
