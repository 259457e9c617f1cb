import { sendThroughKoa } from './answer.js';
import { etagListed, gzipEtag } from './etag.js';
/** `config.publicUrl`, else what the request's Host says (as Koa's `ctx.protocol` is `http` unless told to trust proxies). */
export function baseUrlFor(config, host, protocol = 'http') {
    return config.publicUrl ?? `${protocol}://${host ?? ''}`;
}
export function baseUrl(ctx, config) {
    return baseUrlFor(config, ctx.host, ctx.protocol);
}
export const INDEX_CORS = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers': 'Content-Type, If-Match, If-Modified-Since, If-None-Match, If-Unmodified-Since',
    'Access-Control-Allow-Methods': 'GET',
    'Access-Control-Max-Age': '86400',
    'Access-Control-Expose-Headers': 'X-PyPI-Last-Serial',
};
const INDEX_CORS_HEADERS = Object.entries(INDEX_CORS);
export function indexCacheControl(config) {
    return `max-age=${config.indexMaxAge}, ${config.readAuth ? 'private' : 'public'}`;
}
const GZIP = /\bgzip\b/i;
const GZIP_REFUSED = /\bgzip\s*;\s*q=0(\.0*)?\s*(,|$)/i;
/** True when an Accept-Encoding header takes gzip (and does not refuse it with q=0). */
export function takesGzip(acceptEncoding) {
    return !!acceptEncoding && GZIP.test(acceptEncoding) && !GZIP_REFUSED.test(acceptEncoding);
}
export function acceptsGzip(ctx) {
    return takesGzip(ctx.get('Accept-Encoding'));
}
/** The headers saying where a proxied answer came from. */
export function traceHeaders(trace) {
    const headers = [];
    if (trace.cache)
        headers.push(['X-Larder-Cache', trace.cache]);
    if (trace.upstream)
        headers.push(['X-Larder-Upstream', trace.upstream]);
    return headers;
}
/**
 * A rendered index page or JSON document with ETag, serial, cache and CORS headers, gzip-encoded when the
 * client accepts it (its own strong ETag), and 304 when the client already has it.
 */
export function indexDocumentAnswer(config, cache, key, doc, varyAccept, request) {
    const gzip = takesGzip(request.acceptEncoding) && doc.body.length > 512;
    const etag = gzip ? gzipEtag(doc.etag) : doc.etag;
    const headers = [...traceHeaders(request.trace), ...INDEX_CORS_HEADERS];
    headers.push(['Cache-Control', indexCacheControl(config)], ['X-PyPI-Last-Serial', String(doc.serial)], ['ETag', etag], ['Vary', varyAccept ? 'Accept, Accept-Encoding' : 'Accept-Encoding']);
    if (etagListed(request.ifNoneMatch, etag) || etagListed(request.ifNoneMatch, doc.etag))
        return { status: 304, headers, body: null };
    const body = gzip ? cache.gzip(key, doc) : doc.body;
    headers.push(['Content-Type', doc.contentType]);
    if (gzip)
        headers.push(['Content-Encoding', 'gzip']);
    headers.push(['Content-Length', String(body.length)]);
    return { status: 200, headers, body };
}
/** Sends a rendered index document through Koa (see `indexDocumentAnswer`). */
export function sendIndexDocument(ctx, config, cache, key, doc, varyAccept) {
    const request = { acceptEncoding: ctx.get('Accept-Encoding') || undefined, ifNoneMatch: ctx.get('If-None-Match') || undefined, trace: {} };
    return sendThroughKoa(ctx, indexDocumentAnswer(config, cache, key, doc, varyAccept, request));
}
