/**
 * Ready-to-send index responses in memory, bounded in bytes: the rendered body, its gzip form (made on
 * first demand, since pip and uv ask for gzip) and its ETag. An entry is reused while the source hands
 * back the very same model object it was rendered from; a changed page is a new object, so no stale reuse.
 * A key of null renders a document that is not kept (one made for a single request).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gzip as gzipOffThread, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { piecewiseEtag, strongEtag } from './etag.js';

export interface Rendered {
  source: object;
  body: Buffer;
  gzip: Buffer | null;
  etag: string;
  contentType: string;
  serial: number;
}

/** A document to render a piece at a time (see `RenderedCache.getInPieces`). */
export interface RenderingInPieces {
  pieces: Iterable<string>;
  contentType: string;
  serial: number;
}

const gzipped = promisify(gzipOffThread);

export class RenderedCache {
  private readonly lru: LRUCache<string, Rendered>;
  /** Renderings in pieces under way, by key: a request for the same key and source waits for it. */
  private readonly rendering = new Map<string, { source: object; done: Promise<Rendered> }>();
  /** gzip forms being made off the main thread. */
  private readonly gzipping = new WeakMap<Rendered, Promise<Buffer>>();

  constructor(maxBytes: number) {
    this.lru = new LRUCache<string, Rendered>({
      maxSize: Math.max(maxBytes, 1),
      sizeCalculation: (r) => r.body.length + (r.gzip?.length ?? 0) + 256,
    });
  }

  get(key: string | null, source: object, render: () => { body: string; contentType: string; serial: number }): Rendered {
    const known = key === null ? undefined : this.lru.get(key);
    if (known && known.source === source) return known;
    const { body, contentType, serial } = render();
    const bytes = Buffer.from(body, 'utf8');
    return this.keep(key, { source, body: bytes, gzip: null, etag: strongEtag(bytes), contentType, serial });
  }

  /**
   * The same for a large document: `render` and then each of its pieces are run and encoded in turns of the
   * event loop of their own, so that other requests go on while it renders.
   */
  async getInPieces(key: string, source: object, render: () => RenderingInPieces): Promise<Rendered> {
    const known = this.lru.get(key);
    if (known && known.source === source) return known;
    const pending = this.rendering.get(key);
    if (pending && pending.source === source) return pending.done;
    const done = this.renderInPieces(source, render).then((rendered) => this.keep(key, rendered));
    const entry = { source, done };
    this.rendering.set(key, entry);
    const forget = () => {
      if (this.rendering.get(key) === entry) this.rendering.delete(key);
    };
    done.then(forget, forget);
    return done;
  }

  gzip(key: string | null, rendered: Rendered): Buffer {
    if (!rendered.gzip) {
      rendered.gzip = gzipSync(rendered.body, { level: 6 });
      this.remeasure(key, rendered);
    }
    return rendered.gzip;
  }

  /** Makes the gzip form now, off the main thread, so that `gzip` later has it. */
  async gzipAhead(key: string | null, rendered: Rendered): Promise<void> {
    if (rendered.gzip) return;
    let pending = this.gzipping.get(rendered);
    if (!pending) {
      pending = gzipped(rendered.body, { level: 6 });
      this.gzipping.set(rendered, pending);
    }
    const bytes = await pending;
    if (rendered.gzip) return;
    rendered.gzip = bytes;
    this.remeasure(key, rendered);
  }

  private async renderInPieces(source: object, render: () => RenderingInPieces): Promise<Rendered> {
    await nextTurn();
    const { pieces, contentType, serial } = render();
    const chunks: Buffer[] = [];
    const etag = piecewiseEtag();
    for (const piece of pieces) {
      const bytes = Buffer.from(piece, 'utf8');
      chunks.push(bytes);
      etag.add(bytes);
      await nextTurn();
    }
    return { source, body: Buffer.concat(chunks), gzip: null, etag: etag.etag(), contentType, serial };
  }

  private keep(key: string | null, rendered: Rendered): Rendered {
    if (key !== null && rendered.body.length + 256 <= this.lru.maxSize) this.lru.set(key, rendered);
    return rendered;
  }

  /** Counts a gzip form added to a kept entry. */
  private remeasure(key: string | null, rendered: Rendered): void {
    if (key !== null && this.lru.get(key) === rendered) this.lru.set(key, rendered);
  }
}
