/** Shared response helpers: link bases, index cache and CORS headers, and the answer for a rendered index document. */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import Negotiator from 'negotiator';
import type { Config } from '../config/schema.js';
import type { Provenance } from '../model/documents.js';
import { FROM_PROJECT_PAGE } from '../render/urls.js';
import type { Answer } from './answer.js';
import { etagListed, gzipEtag } from './etag.js';
import { hostOf } from './host-header.js';
import type { Rendered, RenderedCache } from './rendered-cache.js';

/**
 * The base of absolute URLs in an answer that no cache shares (the JSON API without LARDER_PUBLIC_URL, the
 * web pages' snippets): LARDER_PUBLIC_URL, else this request's Host (checked by `hostGate` before routing),
 * else, for an HTTP/1.0 request without one, the address the request came in on. The scheme is `http` unless the connection is TLS: proxy headers are not trusted.
 */
export function requestBaseUrl(req: IncomingMessage, config: Config): string {
  if (config.publicUrl) return config.publicUrl;
  const found = hostOf(req);
  const host = 'host' in found && found.host !== null ? found.host : localAuthority(req.socket);
  return `${(req.socket as TLSSocket).encrypted ? 'https' : 'http'}://${host}`;
}

function localAuthority(socket: Socket): string {
  const address = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.)/, '');
  return `${address.includes(':') ? `[${address}]` : address}:${socket.localPort ?? 80}`;
}

/**
 * Where the links of a project page (`/simple/<p>/`, HTML or JSON) lead: under LARDER_PUBLIC_URL, else
 * relative to the page (`../../packages/<p>/<file>`), so that one rendering serves every client and a
 * reverse proxy may mount larder under a path prefix. Never from the request's Host.
 */
export function projectPageLinkBase(config: Config): string {
  return config.publicUrl ?? FROM_PROJECT_PAGE;
}

/**
 * Where the root page's links start: the path of LARDER_PUBLIC_URL (`<path>/simple/<p>/`, host-relative,
 * which keeps a 600,000-name page small), else undefined: relative to the page (`<p>/`). Never from the Host.
 */
export function rootPageLinkBase(config: Config): string | undefined {
  return config.publicUrl ? new URL(config.publicUrl).pathname.replace(/\/+$/, '') : undefined;
}

export const INDEX_CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Content-Type, If-Match, If-Modified-Since, If-None-Match, If-Unmodified-Since',
  'Access-Control-Allow-Methods': 'GET',
  'Access-Control-Max-Age': '86400',
  'Access-Control-Expose-Headers': 'X-PyPI-Last-Serial',
};
export const INDEX_CORS_HEADERS = Object.entries(INDEX_CORS);

/** `private` when reads need credentials or the answer was made for this request alone (links from its Host). */
export function indexCacheControl(config: Config, ownAnswer = false): string {
  return `max-age=${config.indexMaxAge}, ${config.readAuth || ownAnswer ? 'private' : 'public'}`;
}

/** True when an Accept-Encoding header takes gzip (by name or `*`, and not at q=0), by `negotiator`. */
export function takesGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  // Without parameters (no q) every coding listed is taken: the common `gzip, deflate` needs no parsing.
  if (!acceptEncoding.includes(';')) return PLAIN_GZIP.test(acceptEncoding);
  return new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }).encodings(['gzip']).length > 0;
}

/** `gzip` or `*` as one of the comma-separated codings. */
const PLAIN_GZIP = /(?:^|,)[ \t]*(?:gzip|\*)[ \t]*(?:,|$)/i;

/** The request headers an index document's answer depends on. */
export interface DocumentRequest {
  acceptEncoding: string | undefined;
  ifNoneMatch: string | undefined;
  /** What the sources reported (X-Larder-Cache, X-Larder-Upstream). */
  provenance: Provenance;
}

/** The headers saying where a proxied answer came from. */
export function provenanceHeaders(provenance: Provenance): [string, string][] {
  const headers: [string, string][] = [];
  if (provenance.cache) headers.push(['X-Larder-Cache', provenance.cache]);
  if (provenance.upstream) headers.push(['X-Larder-Upstream', provenance.upstream]);
  return headers;
}

/** Smaller bodies are sent as they are. */
export const GZIP_MIN_BYTES = 512;

/**
 * Whether a document will be sent gzip-encoded with a body: the client takes gzip, the body is worth
 * compressing, and the client does not have it already (a 304 needs no gzip form). Callers that make the
 * gzip form off the main thread ask this first.
 */
export function sendsGzip(request: Pick<DocumentRequest, 'acceptEncoding' | 'ifNoneMatch'>, doc: Pick<Rendered, 'body' | 'etag'>): boolean {
  return (
    takesGzip(request.acceptEncoding) &&
    doc.body.length > GZIP_MIN_BYTES &&
    !etagListed(request.ifNoneMatch, doc.etag) &&
    !etagListed(request.ifNoneMatch, gzipEtag(doc.etag))
  );
}

/**
 * A rendered index page or JSON document with ETag, serial, cache and CORS headers, gzip-encoded when the
 * client accepts it (its own strong ETag), and 304 when the client already has it. A `key` of null is a
 * document made for this request alone (absolute links from its Host): not kept, and `private` for caches.
 */
export function indexDocumentAnswer(
  config: Config,
  cache: RenderedCache,
  key: string | null,
  doc: Rendered,
  varyAccept: boolean,
  request: DocumentRequest,
): Answer {
  const gzip = takesGzip(request.acceptEncoding) && doc.body.length > GZIP_MIN_BYTES;
  const etag = gzip ? gzipEtag(doc.etag) : doc.etag;
  const headers = [...provenanceHeaders(request.provenance), ...INDEX_CORS_HEADERS];
  headers.push(
    ['Cache-Control', indexCacheControl(config, key === null)],
    ['X-PyPI-Last-Serial', String(doc.serial)],
    ['ETag', etag],
    ['Vary', varyAccept ? 'Accept, Accept-Encoding' : 'Accept-Encoding'],
  );
  if (etagListed(request.ifNoneMatch, etag) || etagListed(request.ifNoneMatch, doc.etag)) return { status: 304, headers, body: null };
  const body = gzip ? cache.gzip(key, doc) : doc.body;
  headers.push(['Content-Type', doc.contentType]);
  if (gzip) headers.push(['Content-Encoding', 'gzip']);
  headers.push(['Content-Length', String(body.length)]);
  return { status: 200, headers, body };
}
