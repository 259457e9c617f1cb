/**
 * The answer for a file kept in the blob store: strong ETag, single byte ranges (suffix ranges too),
 * 206/416, immutable caching. Small files (wheels of a few kB) are answered from memory; a store that
 * offers direct URLs (object storage with redirects on) gets a GET redirected there.
 */
import { readFile } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { LRUCache } from 'lru-cache';
import { parse as parseRangeHeader } from 'range-parser';
import { LarderError } from '../base/errors.js';
import type { FileBody, Provenance } from '../model/documents.js';
import type { Answer } from './answer.js';
import { etagListed } from './etag.js';
import { provenanceHeaders } from './respond.js';

export type ByteRange = { start: number; end: number };

/**
 * A Range header against a size (`range-parser`): a range to send, 'unsatisfiable' (416), or null (send it
 * all: no header, another unit, several ranges or a malformed one — a server may ignore Range).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const { code, type, ranges } = parseRangeHeader(size, header.trim());
  if (type !== 'bytes' || code & 1 || ranges.length > 1) return null;
  return ranges[0] ?? 'unsatisfiable';
}

/** The headers every file answer carries, before its own Content-* headers. */
export function fileHeaders(body: { etag: string | null; contentType: string }, privateReads: boolean): [string, string][] {
  const headers: [string, string][] = [
    ['Accept-Ranges', 'bytes'],
    ['Cache-Control', `max-age=365000000, immutable, ${privateReads ? 'private' : 'public'}`],
    ['Access-Control-Allow-Origin', '*'],
    ['Access-Control-Allow-Headers', 'Range'],
    ['Access-Control-Expose-Headers', 'Content-Length, Content-Range, Accept-Ranges'],
  ];
  if (body.etag) headers.push(['ETag', body.etag]);
  headers.push(['Content-Type', body.contentType]);
  return headers;
}

/** Small files served often are kept in memory; blobs never change, so no staleness. */
export type SmallBodies = LRUCache<string, Buffer>;

export function smallBodyCache(maxBytes = 32 * 1024 * 1024): SmallBodies {
  return new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (b) => Math.max(b.length, 1) });
}

/** Files up to this size are read whole (and kept in the small-body cache). */
const SMALL_BODY = 256 * 1024;

export interface FileRequest {
  head: boolean;
  ifNoneMatch: string | undefined;
  ifRange: string | undefined;
  range: string | undefined;
  /** What the sources reported (X-Larder-Cache, X-Larder-Upstream). */
  provenance: Provenance;
}

export async function storedFileAnswer(
  body: Extract<FileBody, { kind: 'stored' }>,
  request: FileRequest,
  privateReads: boolean,
  small: SmallBodies,
): Promise<Answer> {
  const headers = [...provenanceHeaders(request.provenance), ...fileHeaders(body, privateReads)];
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
  if (range) headers.push(['Content-Range', `bytes ${start}-${end}/${body.size}`]);
  headers.push(['Content-Length', String(end - start + 1)]);
  const status = range ? 206 : 200;
  if (request.head || body.size === 0) return { status, headers, body: null };
  const direct = body.directUrl && (await body.directUrl());
  if (direct) return redirectAnswer(request.provenance, direct);
  if (body.size > SMALL_BODY) {
    const { path } = body;
    return { status, headers, body: path === null ? { open: () => body.read({ start, end }) } : { path, start, end } };
  }
  let bytes = small.get(body.sha256);
  if (!bytes) {
    bytes = body.path === null ? await buffer(await body.read()) : await readFile(body.path);
    small.set(body.sha256, bytes);
  }
  return { status, headers, body: range ? bytes.subarray(start, end + 1) : bytes };
}

/** Sends the client to the store's own URL for the bytes (valid for a while, so never cached). */
function redirectAnswer(provenance: Provenance, url: string): Answer {
  return {
    status: 302,
    headers: [...provenanceHeaders(provenance), ['Location', url], ['Cache-Control', 'private, no-store'], ['Content-Length', '0']],
    body: null,
  };
}
