/**
 * One log line and one metrics sample per request: method, path, status, the error code of a refused
 * request (set by the error middleware), duration, cache state, bytes.
 * The cache state counted is the one the response reports (`X-Larder-Cache`), so a request counts once
 * however many cached documents answering it took.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import type { CacheState } from '../model/documents.js';
import type { Metrics } from '../metrics/metrics.js';

const QUIET_PATHS = new Set(['/health', '/metrics']);

export function requestLog(logger: Logger, metrics: Metrics) {
  return async function logRequest(ctx: Context, next: Next): Promise<void> {
    const start = process.hrtime.bigint();
    const done = () => {
      ctx.res.off('finish', done);
      ctx.res.off('close', done);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const route = typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : 'unmatched';
      const status = ctx.res.writableFinished ? ctx.status : 499;
      metrics.observeRequest(route, ctx.method, status, seconds);
      const cache = ctx.response.get('X-Larder-Cache') as CacheState | '';
      if (cache) metrics.cacheResult(cacheKind(ctx.path), cache);
      const quiet = QUIET_PATHS.has(ctx.path);
      if (!logger.isLevelEnabled(quiet ? 'debug' : 'info')) return;
      const line = {
        method: ctx.method,
        path: ctx.path,
        status,
        code: typeof ctx.state.errorCode === 'string' ? ctx.state.errorCode : undefined,
        ms: Math.round(seconds * 10_000) / 10,
        cache: cache || undefined,
        bytes: Number(ctx.response.get('Content-Length')) || undefined,
      };
      if (quiet) logger.debug(line, 'request');
      else logger.info(line, 'request');
    };
    ctx.res.once('finish', done);
    ctx.res.once('close', done);
    await next();
  };
}

function cacheKind(path: string): 'page' | 'file' | 'metadata' {
  if (!path.startsWith('/packages/')) return 'page';
  return path.endsWith('.metadata') ? 'metadata' : 'file';
}
