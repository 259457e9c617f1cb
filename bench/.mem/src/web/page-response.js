const CSP = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' https: data:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "connect-src 'self'",
].join('; ');
export function setPageHeaders(ctx) {
    ctx.set('Content-Security-Policy', CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Cache-Control', 'private, no-cache');
    ctx.vary('Cookie');
}
/** Sends a rendered page; `Server-Timing` says how long the request took inside larder (`ctx.state.webStarted`). */
export function sendPage(ctx, html, status = 200) {
    setPageHeaders(ctx);
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
    const started = ctx.state.webStarted;
    if (started !== undefined)
        ctx.set('Server-Timing', `app;dur=${(performance.now() - started).toFixed(1)}`);
}
