/**
 * Ready-to-send index responses in memory, bounded in bytes: the rendered body, its gzip form (made on
 * first demand, since pip and uv ask for gzip) and its ETag. An entry is reused while the source hands
 * back the very same model object it was rendered from; a changed page is a new object, so no stale reuse.
 */
import { gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { strongEtag } from './etag.js';
export class RenderedCache {
    lru;
    constructor(maxBytes) {
        this.lru = new LRUCache({
            maxSize: Math.max(maxBytes, 1),
            sizeCalculation: (r) => r.body.length + (r.gzip?.length ?? 0) + 256,
        });
    }
    get(key, source, render) {
        const known = this.lru.get(key);
        if (known && known.source === source)
            return known;
        const { body, contentType, serial } = render();
        const bytes = Buffer.from(body, 'utf8');
        const rendered = { source, body: bytes, gzip: null, etag: strongEtag(bytes), contentType, serial };
        if (bytes.length + 256 <= this.lru.maxSize)
            this.lru.set(key, rendered);
        return rendered;
    }
    gzip(key, rendered) {
        if (!rendered.gzip) {
            rendered.gzip = gzipSync(rendered.body, { level: 6 });
            if (this.lru.get(key) === rendered)
                this.lru.set(key, rendered);
        }
        return rendered.gzip;
    }
}
