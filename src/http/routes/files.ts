/**
 * Distribution files and their companions: GET/HEAD /packages/<project>/<filename>[.metadata|.asc],
 * with strong ETags, single byte ranges (suffix ranges too), 206/416, and immutable caching.
 */
import { open, readFile } from 'node:fs/promises';
import { LRUCache } from 'lru-cache';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { badRequest, LarderError, notFound } from '../../base/errors.js';
import type { FileBody, FileVariant, SourceTrace } from '../../model/documents.js';
import { normalizeName } from '../../model/names.js';
import { checkFilenameSegment, checkProjectName } from '../../index/client-names.js';
import type { HttpDeps } from '../deps.js';
import { matchesEtag } from '../etag.js';

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

/** Small files served often (wheels of a few kB) are kept in memory; blobs never change, so no staleness. */
export type SmallBodies = LRUCache<string, Buffer>;

export function smallBodyCache(maxBytes = 32 * 1024 * 1024): SmallBodies {
  return new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (b) => Math.max(b.length, 1) });
}

export async function sendFileBody(ctx: Context, body: FileBody, privateReads: boolean, small: SmallBodies): Promise<void> {
  if (body.kind === 'stream') {
    // Not yet on disk: the whole file as it arrives (a server may ignore Range). HEAD of a file whose size
    // the page did not give joins (or starts) its download to learn the size, and lets it go on without it.
    const head = ctx.method === 'HEAD';
    const opened = head && body.size !== null ? null : await body.open();
    if (head) opened?.stream.destroy();
    fileHeaders(ctx, body, privateReads);
    ctx.status = 200;
    const size = opened?.size ?? body.size;
    if (size !== null) ctx.length = size;
    if (opened && !head) ctx.body = opened.stream;
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
    throw new LarderError('range_not_satisfiable', `Range not satisfiable: the file has ${body.size} bytes.`, {
      'Content-Range': `bytes */${body.size}`,
    });
  }
  const { start, end } = range ?? { start: 0, end: body.size - 1 };
  ctx.status = range ? 206 : 200;
  if (range) ctx.set('Content-Range', `bytes ${start}-${end}/${body.size}`);
  ctx.length = end - start + 1;
  if (ctx.method === 'HEAD' || body.size === 0) return;
  if (body.size <= SMALL_BODY) {
    let bytes = small.get(body.path);
    if (!bytes) {
      bytes = await readFile(body.path);
      small.set(body.path, bytes);
    }
    ctx.body = range ? bytes.subarray(start, end + 1) : bytes;
    return;
  }
  await pumpFile(ctx, body.path, start, end);
}

/** Files up to this size are read whole (and kept in the small-body cache). */
const SMALL_BODY = 256 * 1024;
const CHUNK = 1 << 20;

/**
 * Sends bytes `start`..`end` of a large file through two reused 1 MiB buffers: the next chunk is read
 * while the previous one is being written, and a buffer is refilled only once the socket has taken it.
 * (A read stream allocates a new buffer per chunk, and collecting them costs more than the copying.)
 */
async function pumpFile(ctx: Context, path: string, start: number, end: number): Promise<void> {
  const handle = await open(path, 'r');
  ctx.respond = false;
  const res = ctx.res;
  const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
  const inFlight: (Promise<void> | null)[] = [null, null];
  const written = (buffer: Buffer) => new Promise<void>((resolve, reject) => res.write(buffer, (err) => (err ? reject(err) : resolve())));
  void (async () => {
    try {
      let position = start;
      for (let which = 0; position <= end && !res.destroyed; which ^= 1) {
        await inFlight[which];
        const buffer = buffers[which]!;
        const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, end - position + 1), position);
        if (bytesRead === 0) throw new Error(`${path} is shorter than its record says`);
        position += bytesRead;
        inFlight[which] = written(buffer.subarray(0, bytesRead));
        inFlight[which]!.catch(() => {});
      }
      await Promise.all(inFlight);
      res.end();
    } catch (err) {
      res.destroy(err as Error);
    } finally {
      await handle.close();
    }
  })();
}

export function registerFileRoutes(router: Router, deps: HttpDeps): void {
  const smallBodies = smallBodyCache();
  router.get('/packages/:project/:filename', async (ctx) => {
    const requested = ctx.params.filename!;
    if (!SAFE_FILENAME.test(requested) || requested === '.' || requested === '..') {
      throw badRequest('invalid_filename', `Invalid file name in the URL: ${JSON.stringify(requested)}.`);
    }
    checkProjectName(ctx.params.project!);
    const project = normalizeName(ctx.params.project!);
    const { filename, variant } = splitVariant(requested);
    checkFilenameSegment(filename);
    const trace: SourceTrace = {};
    const body = await deps.source.openFile(project, filename, variant, trace);
    if (trace.cache) ctx.set('X-Larder-Cache', trace.cache);
    if (trace.upstream) ctx.set('X-Larder-Upstream', trace.upstream);
    if (!body) throw notFound(`No file ${requested} in project ${project}.`);
    await sendFileBody(ctx, body, deps.config.readAuth, smallBodies);
    if (trace.cache === 'hit' && ctx.method === 'GET') {
      const bytes = ctx.length ?? 0;
      ctx.res.once('finish', () => deps.metrics.cacheServedBytes.inc(bytes));
    }
  });
}
