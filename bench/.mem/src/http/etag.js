/** Strong ETags: of a body, of its gzip form, and whether a conditional request names one. */
import { createHash } from 'node:crypto';
export function strongEtag(body) {
    return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}
/** The strong ETag of a body's gzip form: a representation of its own. */
export function gzipEtag(etag) {
    return `${etag.slice(0, -1)}-gz"`;
}
/** True when an If-None-Match header names `etag` (or `*`). */
export function etagListed(ifNoneMatch, etag) {
    if (!ifNoneMatch)
        return false;
    return ifNoneMatch.split(',').some((tag) => {
        const t = tag.trim();
        return t === '*' || t === etag || t === `W/${etag}`;
    });
}
/** True when the request's If-None-Match names `etag` (or `*`). */
export function matchesEtag(ctx, etag) {
    return etagListed(ctx.get('If-None-Match'), etag);
}
