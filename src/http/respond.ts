/** Shared response helpers: base URL, index cache and CORS headers, and sending a rendered index document. */
import type { Context } from 'koa';
import type { Config } from '../config/schema.js';
import { gzipEtag, matchesEtag } from './etag.js';
import type { Rendered, RenderedCache } from './rendered-cache.js';

export function baseUrl(ctx: Context, config: Config): string {
  return config.publicUrl ?? `${ctx.protocol}://${ctx.host}`;
}

export const INDEX_CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Content-Type, If-Match, If-Modified-Since, If-None-Match, If-Unmodified-Since',
  'Access-Control-Allow-Methods': 'GET',
  'Access-Control-Max-Age': '86400',
  'Access-Control-Expose-Headers': 'X-PyPI-Last-Serial',
};

export function indexCacheControl(config: Config): string {
  return `max-age=${config.indexMaxAge}, ${config.readAuth ? 'private' : 'public'}`;
}

/** True when the client's Accept-Encoding takes gzip (and does not refuse it with q=0). */
export function acceptsGzip(ctx: Context): boolean {
  return /\bgzip\b/i.test(ctx.get('Accept-Encoding')) && !/\bgzip\s*;\s*q=0(\.0*)?\s*(,|$)/i.test(ctx.get('Accept-Encoding'));
}

/**
 * Sends a rendered index page or JSON document with ETag, serial, cache and CORS headers, gzip-encoded
 * when the client accepts it (its own strong ETag), and 304 when the client already has it.
 */
export function sendIndexDocument(ctx: Context, config: Config, cache: RenderedCache, key: string, doc: Rendered, varyAccept: boolean): void {
  const gzip = acceptsGzip(ctx) && doc.body.length > 512;
  const etag = gzip ? gzipEtag(doc.etag) : doc.etag;
  const res = ctx.res;
  for (const name in INDEX_CORS) res.setHeader(name, INDEX_CORS[name as keyof typeof INDEX_CORS]);
  res.setHeader('Cache-Control', indexCacheControl(config));
  res.setHeader('X-PyPI-Last-Serial', String(doc.serial));
  res.setHeader('ETag', etag);
  res.setHeader('Vary', varyAccept ? 'Accept, Accept-Encoding' : 'Accept-Encoding');
  if (matchesEtag(ctx, etag) || matchesEtag(ctx, doc.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = doc.contentType;
  if (gzip) {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = cache.gzip(key, doc);
  } else {
    ctx.body = doc.body;
  }
}
