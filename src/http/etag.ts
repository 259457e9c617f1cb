/** Strong ETags: of a body, of its gzip form, and whether a conditional request names one (`fresh`). */
import { createHash, type Hash } from 'node:crypto';
import fresh from 'fresh';

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

/** True when an If-None-Match header names `etag` (or `*`; weak comparison, as for GET and HEAD). */
export function etagListed(ifNoneMatch: string | undefined, etag: string): boolean {
  return !!ifNoneMatch && fresh({ 'if-none-match': ifNoneMatch }, { etag });
}
