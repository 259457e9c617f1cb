const QUIET_PATHS = new Set(['/health', '/metrics']);
/** Records a request once its response has finished (or the connection closed first: status 499). */
export function requestRecorder(logger, metrics) {
    return (res, describe, start = process.hrtime.bigint()) => {
        const done = () => {
            res.off('finish', done);
            res.off('close', done);
            const seconds = Number(process.hrtime.bigint() - start) / 1e9;
            const finished = res.writableFinished;
            const request = describe();
            const status = finished ? request.status : 499;
            metrics.observeRequest(request.route, request.method, status, seconds);
            if (request.cache)
                metrics.cacheResult(cacheKind(request.path), request.cache);
            const quiet = QUIET_PATHS.has(request.path);
            if (!logger.isLevelEnabled(quiet ? 'debug' : 'info'))
                return;
            const line = {
                method: request.method,
                path: request.path,
                status,
                code: request.code,
                ms: Math.round(seconds * 10_000) / 10,
                cache: request.cache || undefined,
                bytes: request.bytes || undefined,
            };
            if (quiet)
                logger.debug(line, 'request');
            else
                logger.info(line, 'request');
        };
        res.once('finish', done);
        res.once('close', done);
    };
}
export function requestLog(record) {
    return async function logRequest(ctx, next) {
        record(ctx.res, () => ({
            method: ctx.method,
            path: ctx.path,
            route: typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : 'unmatched',
            status: ctx.status,
            code: typeof ctx.state.errorCode === 'string' ? ctx.state.errorCode : undefined,
            cache: ctx.response.get('X-Larder-Cache'),
            bytes: Number(ctx.response.get('Content-Length')) || undefined,
        }));
        await next();
    };
}
function cacheKind(path) {
    if (!path.startsWith('/packages/'))
        return 'page';
    return path.endsWith('.metadata') ? 'metadata' : 'file';
}
