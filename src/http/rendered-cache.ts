/**
 * Ready-to-send index responses in memory, bounded in bytes: the rendered body, its gzip form (made on
 * first demand, since pip and uv ask for gzip) and its ETag. An entry is reused while the source hands
 * back the very same model object it was rendered from; a changed page is a new object, so no stale reuse.
 * A key of null renders a document that is not kept (one made for a single request).
 */
import { gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { strongEtag } from './etag.js';

export interface Rendered {
  source: object;
  body: Buffer;
  gzip: Buffer | null;
  etag: string;
  contentType: string;
  serial: number;
}

export class RenderedCache {
  private readonly lru: LRUCache<string, Rendered>;

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
    const rendered: Rendered = { source, body: bytes, gzip: null, etag: strongEtag(bytes), contentType, serial };
    if (key !== null && bytes.length + 256 <= this.lru.maxSize) this.lru.set(key, rendered);
    return rendered;
  }

  gzip(key: string | null, rendered: Rendered): Buffer {
    if (!rendered.gzip) {
      rendered.gzip = gzipSync(rendered.body, { level: 6 });
      if (key !== null && this.lru.get(key) === rendered) this.lru.set(key, rendered);
    }
    return rendered.gzip;
  }
}
