/**
 * Distribution files and their companions: GET/HEAD /packages/<project>/<filename>[.metadata|.asc],
 * with strong ETags, single byte ranges (suffix ranges too), 206/416, and immutable caching.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { badRequest, LarderError, notFound } from '../../errors.js';
import type { FileBody, FileVariant, SourceTrace } from '../../index/model.js';
import { normalizeName } from '../../index/names.js';
import type { HttpDeps } from '../deps.js';
import { matchesEtag } from '../respond.js';

export type ByteRange = { start: number; end: number };

/**
 * Parses a Range header against a size: a range to send, 'unsatisfiable' (416), or null (send it all:
 * no header, another unit, several ranges or a malformed one — a server may ignore Range).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return null;
  return { start, end };
}

const SAFE_FILENAME = /^[^/\\\x00-\x1f\x7f]+$/;

function splitVariant(requested: string): { filename: string; variant: FileVariant } {
  if (requested.endsWith('.metadata')) return { filename: requested.slice(0, -'.metadata'.length), variant: 'metadata' };
  if (requested.endsWith('.asc')) return { filename: requested.slice(0, -'.asc'.length), variant: 'signature' };
  return { filename: requested, variant: 'file' };
}

function fileHeaders(ctx: Context, body: FileBody, privateReads: boolean): void {
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Cache-Control', `max-age=365000000, immutable, ${privateReads ? 'private' : 'public'}`);
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Allow-Headers', 'Range');
  ctx.set('Access-Control-Expose-Headers', 'Content-Length, Content-Range, Accept-Ranges');
  if (body.etag) ctx.set('ETag', body.etag);
  ctx.type = body.contentType;
}

export async function sendFileBody(ctx: Context, body: FileBody, privateReads: boolean): Promise<void> {
  if (body.kind === 'stream') {
    // Not yet on disk: the whole file as it arrives (a server may ignore Range); HEAD starts no download.
    const stream = ctx.method === 'HEAD' ? null : await body.open();
    fileHeaders(ctx, body, privateReads);
    ctx.status = 200;
    if (body.size !== null) ctx.length = body.size;
    if (stream) ctx.body = stream;
    return;
  }
  fileHeaders(ctx, body, privateReads);
  if (body.etag && matchesEtag(ctx, body.etag)) {
    ctx.status = 304;
    return;
  }
  const ifRange = ctx.get('If-Range');
  const rangeAllowed = !ifRange || ifRange === body.etag;
  const range = rangeAllowed ? parseRange(ctx.get('Range'), body.size) : null;
  if (range === 'unsatisfiable') {
    ctx.set('Content-Range', `bytes */${body.size}`);
    throw new LarderError(416, 'range_not_satisfiable', `Range not satisfiable: the file has ${body.size} bytes.`, {
      'Content-Range': `bytes */${body.size}`,
    });
  }
  const { start, end } = range ?? { start: 0, end: body.size - 1 };
  ctx.status = range ? 206 : 200;
  if (range) ctx.set('Content-Range', `bytes ${start}-${end}/${body.size}`);
  ctx.length = end - start + 1;
  if (ctx.method !== 'HEAD') ctx.body = await readBody(body.path, start, end);
}

/** Bodies up to this size are read in one go; larger ones are streamed in large chunks. */
const SMALL_BODY = 256 * 1024;

async function readBody(path: string, start: number, end: number): Promise<Buffer | NodeJS.ReadableStream> {
  const length = end - start + 1;
  if (length <= 0) return Buffer.alloc(0);
  if (length > SMALL_BODY) return createReadStream(path, { start, end, highWaterMark: 1 << 20 });
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await handle.read(buffer, read, length - read, start + read);
      if (bytesRead === 0) throw new Error(`${path} is shorter than its record says`);
      read += bytesRead;
    }
    return buffer;
  } finally {
    await handle.close();
  }
}

export function registerFileRoutes(router: Router, deps: HttpDeps): void {
  router.get('/packages/:project/:filename', async (ctx) => {
    const requested = ctx.params.filename!;
    if (!SAFE_FILENAME.test(requested) || requested === '.' || requested === '..') {
      throw badRequest('invalid_filename', `Invalid file name in the URL: ${JSON.stringify(requested)}.`);
    }
    const project = normalizeName(ctx.params.project!);
    const { filename, variant } = splitVariant(requested);
    const trace: SourceTrace = {};
    const body = await deps.source.openFile(project, filename, variant, trace);
    if (trace.cache) ctx.set('X-Larder-Cache', trace.cache);
    if (!body) throw notFound(`No file ${requested} in project ${project}.`);
    await sendFileBody(ctx, body, deps.config.readAuth);
    if (trace.cache === 'hit' && ctx.method === 'GET') {
      const bytes = ctx.length ?? 0;
      ctx.res.once('finish', () => deps.metrics.cacheServedBytes.inc(bytes));
    }
  });
}
