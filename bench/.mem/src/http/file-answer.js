/**
 * The answer for a file kept on disk: strong ETag, single byte ranges (suffix ranges too), 206/416,
 * immutable caching. Small files (wheels of a few kB) are answered from memory.
 */
import { readFile } from 'node:fs/promises';
import { LRUCache } from 'lru-cache';
import { LarderError } from '../base/errors.js';
import { etagListed } from './etag.js';
import { traceHeaders } from './respond.js';
/**
 * Parses a Range header against a size: a range to send, 'unsatisfiable' (416), or null (send it all:
 * no header, another unit, several ranges or a malformed one — a server may ignore Range).
 */
export function parseRange(header, size) {
    if (!header)
        return null;
    const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
    if (!match)
        return null;
    const [, first, last] = match;
    if (first === '' && last === '')
        return null;
    if (first === '') {
        const suffix = Number(last);
        if (suffix === 0)
            return 'unsatisfiable';
        return { start: Math.max(0, size - suffix), end: size - 1 };
    }
    const start = Number(first);
    const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
    if (start >= size)
        return 'unsatisfiable';
    if (end < start)
        return null;
    return { start, end };
}
/** The headers every file answer carries, before its own Content-* headers. */
export function fileHeaders(body, privateReads) {
    const headers = [
        ['Accept-Ranges', 'bytes'],
        ['Cache-Control', `max-age=365000000, immutable, ${privateReads ? 'private' : 'public'}`],
        ['Access-Control-Allow-Origin', '*'],
        ['Access-Control-Allow-Headers', 'Range'],
        ['Access-Control-Expose-Headers', 'Content-Length, Content-Range, Accept-Ranges'],
    ];
    if (body.etag)
        headers.push(['ETag', body.etag]);
    headers.push(['Content-Type', body.contentType]);
    return headers;
}
export function smallBodyCache(maxBytes = 32 * 1024 * 1024) {
    return new LRUCache({ maxSize: maxBytes, sizeCalculation: (b) => Math.max(b.length, 1) });
}
/** Files up to this size are read whole (and kept in the small-body cache). */
const SMALL_BODY = 256 * 1024;
export async function diskFileAnswer(body, request, privateReads, small) {
    const headers = [...traceHeaders(request.trace), ...fileHeaders(body, privateReads)];
    if (etagListed(request.ifNoneMatch, body.etag)) {
        return { status: 304, headers: headers.filter(([name]) => name !== 'Content-Type'), body: null };
    }
    const rangeAllowed = !request.ifRange || request.ifRange === body.etag;
    const range = rangeAllowed ? parseRange(request.range, body.size) : null;
    if (range === 'unsatisfiable') {
        throw new LarderError('range_not_satisfiable', `Range not satisfiable: the file has ${body.size} bytes.`, {
            'Content-Range': `bytes */${body.size}`,
        });
    }
    const { start, end } = range ?? { start: 0, end: body.size - 1 };
    if (range)
        headers.push(['Content-Range', `bytes ${start}-${end}/${body.size}`]);
    headers.push(['Content-Length', String(end - start + 1)]);
    const status = range ? 206 : 200;
    if (request.head || body.size === 0)
        return { status, headers, body: null };
    if (body.size > SMALL_BODY)
        return { status, headers, body: { path: body.path, start, end } };
    let bytes = small.get(body.path);
    if (!bytes) {
        bytes = await readFile(body.path);
        small.set(body.path, bytes);
    }
    return { status, headers, body: range ? bytes.subarray(start, end + 1) : bytes };
}
