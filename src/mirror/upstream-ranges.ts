/**
 * An upstream file read by HTTP range requests, the way `readWheelMetadata` reads an archive: its tail
 * first (the zip's end record and, for most wheels, the whole central directory), then windows further
 * in. Every read is a GET through larder's upstream client (its origin checks, retries and the page
 * deadline), and every answer must be the 206 of exactly the bytes asked for, of a file of one size (the
 * index's, when it lists one) and one ETag. At most the tail and one window are held in memory.
 */
import { Readable } from 'node:stream';
import type { UpstreamClient, UpstreamResponse } from '../upstream/client.js';
import { discard, statusError } from '../upstream/read-body.js';
import { UpstreamError } from '../upstream/upstream-error.js';

/** Read first: yauzl looks for the end record in the last 64 KiB + 22 bytes, and most central directories fit too. */
export const TAIL_BYTES = 256 * 1024;
/** A read smaller than this fetches this much, kept for the reads that follow (yauzl reads each directory entry on its own). */
export const WINDOW_BYTES = 256 * 1024;

export interface RangeReadOptions {
  /** Total time for each range request, its retries and its body, ms. */
  deadline: number;
  /** The size the index lists, when it lists one. */
  expectedSize: number | null;
  /** The largest file larder reads (LARDER_MAX_FILE_SIZE). */
  maxBytes: number;
  /** Told of every body byte received. */
  onBytes: (n: number) => void;
}

/** A file read by inclusive ranges, as `readWheelMetadata` takes it. */
export interface RangedFile {
  size: number;
  read(range: { start: number; end: number }): Promise<Readable>;
}

/** Opened by ranges, or the upstream ignores ranges (it answered the first with the whole file, which was not read). */
export type RangedOpen = { kind: 'ranges'; file: RangedFile } | { kind: 'whole' };

interface Held {
  start: number;
  bytes: Buffer;
}

const invalid = (url: string, detail: string) => new UpstreamError(`answered a range request for ${url} wrongly: ${detail}`, 'invalid');

function contentRange(res: UpstreamResponse): { start: number; end: number; size: number } | null {
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.headers['content-range']?.trim() ?? '');
  if (!m) return null;
  const [start, end, size] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return Number.isSafeInteger(size) && start <= end && end < size ? { start, end, size } : null;
}

/** The body, which must be exactly `length` bytes, as it arrives. */
async function* exactly(res: UpstreamResponse, length: number, onBytes: (n: number) => void): AsyncGenerator<Buffer> {
  let received = 0;
  try {
    for await (const chunk of res.body) {
      const bytes = chunk as Buffer;
      received += bytes.length;
      if (received > length) throw invalid(res.url, `more than the ${length} bytes of the range`);
      onBytes(bytes.length);
      yield bytes;
    }
  } catch (err) {
    throw res.describe(err);
  } finally {
    if (!res.body.destroyed) discard(res);
  }
  if (received < length) throw invalid(res.url, `${received} bytes instead of the ${length} of the range`);
}

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

class UpstreamRanges implements RangedFile {
  private window: Held | null = null;

  constructor(
    private readonly client: Pick<UpstreamClient, 'get'>,
    private readonly url: string,
    readonly size: number,
    private readonly etag: string | undefined,
    private readonly tail: Held,
    private readonly options: RangeReadOptions,
  ) {}

  async read({ start, end }: { start: number; end: number }): Promise<Readable> {
    const held = [this.tail, this.window].find((h) => h && start >= h.start && end < h.start + h.bytes.length);
    if (held) return Readable.from([held.bytes.subarray(start - held.start, end + 1 - held.start)]);
    if (end - start + 1 >= WINDOW_BYTES) return Readable.from(await this.fetch(start, end));
    const windowEnd = Math.min(this.size - 1, start + WINDOW_BYTES - 1);
    this.window = { start, bytes: await collect(await this.fetch(start, windowEnd)) };
    return Readable.from([this.window.bytes.subarray(0, end + 1 - start)]);
  }

  private async fetch(start: number, end: number): Promise<AsyncIterable<Buffer>> {
    const res = await this.client.get(this.url, { headers: { range: `bytes=${start}-${end}` }, deadline: this.options.deadline });
    const range = res.status === 206 ? contentRange(res) : null;
    const wrong =
      res.status !== 206
        ? `${res.status} instead of 206`
        : !range || range.start !== start || range.end !== end || range.size !== this.size
          ? `Content-Range ${JSON.stringify(res.headers['content-range'] ?? null)} for bytes ${start}-${end} of ${this.size}`
          : this.etag !== undefined && res.headers.etag !== undefined && res.headers.etag !== this.etag
            ? `the ETag changed from ${this.etag} to ${res.headers.etag} (the file changed while it was read)`
            : null;
    if (wrong) {
      discard(res);
      throw invalid(this.url, wrong);
    }
    return exactly(res, end - start + 1, this.options.onBytes);
  }
}

/**
 * Asks for the file's tail. A 206 opens it for range reads; a 200 (ranges not honoured) says so, its
 * body left unread (a whole file is no range: it gets no total deadline); anything else is an error.
 */
export async function openByRanges(client: Pick<UpstreamClient, 'get'>, url: string, options: RangeReadOptions): Promise<RangedOpen> {
  const { expectedSize, maxBytes } = options;
  if (expectedSize === 0) throw new UpstreamError(`lists ${url} as an empty file`, 'invalid');
  const range = expectedSize === null ? `bytes=-${TAIL_BYTES}` : `bytes=${Math.max(0, expectedSize - TAIL_BYTES)}-${expectedSize - 1}`;
  const res = await client.get(url, { headers: { range }, deadline: options.deadline });
  if (res.status === 200) {
    discard(res);
    return { kind: 'whole' };
  }
  if (res.status !== 206) {
    discard(res);
    throw statusError(res);
  }
  const got = contentRange(res);
  const wrong = !got
    ? `Content-Range ${JSON.stringify(res.headers['content-range'] ?? null)}`
    : expectedSize !== null && got.size !== expectedSize
      ? `the file is ${got.size} bytes, the index lists ${expectedSize}`
      : got.size > maxBytes
        ? `the file is ${got.size} bytes, more than LARDER_MAX_FILE_SIZE (${maxBytes})`
        : got.end !== got.size - 1 || got.start !== Math.max(0, got.size - TAIL_BYTES)
          ? `bytes ${got.start}-${got.end} of ${got.size} for ${range}`
          : null;
  if (wrong || !got) {
    discard(res);
    throw invalid(res.url, wrong ?? 'no Content-Range');
  }
  const tail = { start: got.start, bytes: await collect(exactly(res, got.end - got.start + 1, options.onBytes)) };
  const file = new UpstreamRanges(client, res.url, got.size, res.headers.etag, tail, options);
  return { kind: 'ranges', file: { size: file.size, read: (r) => file.read(r) } };
}
