/** Strong ETags: of a body, of its gzip form, and whether a conditional request names one. */
import { createHash, type Hash } from 'node:crypto';
import type { Context } from 'koa';

export function strongEtag(body: string | Buffer): string {
  return strongEtagOf(createHash('sha256').update(body));
}

/** strongEtag of a body given a piece at a time: `add` each piece, then read `etag()`. */
export function piecewiseEtag(): { add(piece: Buffer): void; etag(): string } {
  const hash = createHash('sha256');
  return { add: (piece) => hash.update(piece), etag: () => strongEtagOf(hash) };
}

function strongEtagOf(hash: Hash): string {
  return `"${hash.digest('base64url').slice(0, 27)}"`;
}

/** The strong ETag of a body's gzip form: a representation of its own. */
export function gzipEtag(etag: string): string {
  return `${etag.slice(0, -1)}-gz"`;
}

/** True when an If-None-Match header names `etag` (or `*`). */
export function etagListed(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** True when the request's If-None-Match names `etag` (or `*`). */
export function matchesEtag(ctx: Context, etag: string): boolean {
  return etagListed(ctx.get('If-None-Match'), etag);
}
