/**
 * Request-body parsing (koa-body) for the few routes that read a JSON or form body. koa-body and what it
 * brings (formidable, zod, co-body) cost about 25 MB of memory and half a second at start, so it is loaded
 * by the first request that needs it.
 */
import type { Middleware } from 'koa';
import type { KoaBodyMiddlewareOptions } from 'koa-body';
import { lazyRequire } from '../base/lazy-require.js';

export function bodyParser(options: Partial<KoaBodyMiddlewareOptions>): Middleware {
  let parse: Middleware | null = null;
  return (ctx, next) => {
    parse ??= (lazyRequire('koa-body') as typeof import('koa-body')).koaBody(options) as unknown as Middleware;
    return parse(ctx, next);
  };
}
