/**
 * What a node starts from when it takes a file's download lock: the parts an earlier holder (one that died
 * or failed midway) left, as far as they hold the file from its first byte without a gap, so that the
 * upstream is asked only for the rest (a `Range` request, answered 206, or 200 with the whole file, whose
 * first bytes are then skipped); and the publishing, as parts, of the rest once another node follows.
 */
import type { DownloadPart, DownloadParts } from '../store/download-parts.js';
import type { UpstreamResponse } from '../upstream/client.js';
import { PartPublisher, type PublishOptions } from './part-publisher.js';

/** Bytes `start` to `end` (inclusive, counted within the part) of the part at `offset`. */
interface Segment {
  offset: number;
  start: number;
  end: number;
}

export interface UpstreamBody {
  body: AsyncIterable<Uint8Array>;
  /** The whole file's size, when the answer says it. */
  contentLength: number | null;
}

/** The segments of `parts` (by offset) that hold the file from byte 0 without a gap, and the byte after them. */
export function fromTheStart(parts: DownloadPart[]): { segments: Segment[]; offset: number } {
  const segments: Segment[] = [];
  let offset = 0;
  for (const part of parts) {
    if (part.offset > offset) break;
    if (part.offset + part.size <= offset) continue;
    segments.push({ offset: part.offset, start: offset - part.offset, end: part.size - 1 });
    offset = part.offset + part.size;
  }
  return { segments, offset };
}

/** The response's own Content-Length, when it sent a valid one. */
export function declaredLength(res: UpstreamResponse): number | null {
  const declared = Number(res.headers['content-length']);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : null;
}

async function* skip(body: AsyncIterable<Uint8Array>, bytes: number): AsyncGenerator<Uint8Array> {
  let left = bytes;
  for await (const chunk of body) {
    if (left >= chunk.byteLength) left -= chunk.byteLength;
    else {
      yield left ? chunk.subarray(left) : chunk;
      left = 0;
    }
  }
}

async function* nothing(): AsyncGenerator<Uint8Array> {}

const CONTENT_RANGE = /^bytes (?:(\d+)-\d+|\*)\/(\d+)$/;

export class Handover {
  /** Bytes the parts hold from the start: the upstream is asked from here on. */
  readonly offset: number;
  private readonly segments: Segment[];
  private readonly publisher: PartPublisher;
  private publishing: Promise<void> | undefined;

  constructor(
    private readonly parts: DownloadParts,
    private readonly sha256: string,
    found: DownloadPart[],
    options: PublishOptions,
    private readonly onFailure: (err: Error) => void,
  ) {
    const { segments, offset } = fromTheStart(found);
    this.segments = segments;
    this.offset = offset;
    this.publisher = new PartPublisher(parts, sha256, offset, options, onFailure);
  }

  /** The file's body given the upstream's answer to the request from `offset`; null when the answer is not one. */
  async read(res: UpstreamResponse): Promise<UpstreamBody | null> {
    if (res.status === 200) return { body: this.body(this.offset ? skip(res.body, this.offset) : res.body), contentLength: declaredLength(res) };
    if (!this.offset) return null;
    const range = CONTENT_RANGE.exec(res.headers['content-range'] ?? '');
    if (res.status === 206 && range?.[1] !== undefined && Number(range[1]) === this.offset)
      return { body: this.body(res.body), contentLength: Number(range[2]) };
    // Asked from the end of the file: the parts hold all of it.
    if (res.status === 416 && range && range[1] === undefined && Number(range[2]) === this.offset) {
      await res.body.dump().catch(() => {});
      return { body: this.body(nothing()), contentLength: this.offset };
    }
    return null;
  }

  /** Publishes the file from where the parts end, reading `file` from its first byte (once, however often asked). */
  publish(file: () => Promise<AsyncIterable<Uint8Array>>): void {
    this.publishing ??= file()
      .then((bytes) => this.publisher.consume(bytes))
      .catch((err: Error) => this.onFailure(err));
  }

  /** Resolves once every part this holder gave is written. */
  async written(): Promise<void> {
    await this.publishing;
  }

  private async *body(rest: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for (const segment of this.segments) yield await this.parts.read(this.sha256, segment.offset, segment);
    yield* rest;
  }
}
