/**
 * One log line and one metrics sample per request: method, path, status sent, the error code of a refused
 * request (set by the error middleware, or a web form that shows the error), duration, cache state, bytes;
 * a 429 or 503 with an error code is also counted as a refusal. The Koa stack (`requestLog`), the hot
 * routes (`entry.ts`) and the Host check record through the same `requestRecorder`.
 * The cache state counted is the one the response reports (`X-Larder-Cache`), so a request counts once
 * however many cached documents answering it took.
 */
import type { ServerResponse } from 'node:http';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import type { CacheState } from '../model/documents.js';
import type { Metrics } from '../metrics/metrics.js';

const QUIET_PATHS = new Set(['/health', '/metrics']);

export interface FinishedRequest {
  method: string;
  path: string;
  /** The matched route pattern, e.g. `/simple/:project/`. */
  route: string;
  code: string | undefined;
  cache: CacheState | '';
  bytes: number | undefined;
}

/** `describe` is asked once the response is over. */
export type RequestRecorder = (res: ServerResponse, describe: () => FinishedRequest) => void;

/**
 * Records a request once its response is over (finished, or its connection closed). The status is the one sent;
 * a connection closed before the response head went out is 499; one closed after the head but before the
 * response was finished is logged with `aborted: true`.
 */
export function requestRecorder(logger: Logger, metrics: Metrics): RequestRecorder {
  return (res, describe) => {
    const start = process.hrtime.bigint();
    const done = () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const request = describe();
      const status = res.headersSent ? res.statusCode : 499;
      const aborted = res.headersSent && !res.writableFinished;
      metrics.observeRequest(request.route, request.method, status, seconds);
      if ((status === 429 || status === 503) && request.code) metrics.refusals.inc({ status: String(status), code: request.code });
      if (request.cache) metrics.cacheResult(cacheKind(request.path), request.cache);
      const quiet = QUIET_PATHS.has(request.path);
      if (!logger.isLevelEnabled(quiet ? 'debug' : 'info')) return;
      const line = {
        method: request.method,
        path: request.path,
        status,
        code: request.code,
        ms: Math.round(seconds * 10_000) / 10,
        cache: request.cache || undefined,
        bytes: request.bytes || undefined,
        aborted: aborted || undefined,
      };
      if (quiet) logger.debug(line, 'request');
      else logger.info(line, 'request');
    };
    // A response always emits 'close', after 'finish' when it was finished: one listener sees every end.
    res.once('close', done);
  };
}

export function requestLog(record: RequestRecorder) {
  return async function logRequest(ctx: Context, next: Next): Promise<void> {
    record(ctx.res, () => ({
      method: ctx.method,
      path: ctx.path,
      route: typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : 'unmatched',
      code: typeof ctx.state.errorCode === 'string' ? ctx.state.errorCode : undefined,
      cache: ctx.response.get('X-Larder-Cache') as CacheState | '',
      bytes: Number(ctx.response.get('Content-Length')) || undefined,
    }));
    await next();
  };
}

function cacheKind(path: string): 'page' | 'file' | 'metadata' {
  if (!path.startsWith('/packages/')) return 'page';
  return path.endsWith('.metadata') ? 'metadata' : 'file';
}
