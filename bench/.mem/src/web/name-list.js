import { normalizeName } from '../model/names.js';
export class NameList {
    text;
    displays;
    size;
    constructor(
    /** `\n` + one normalized name and `\n` per project. */
    text, displays, size) {
        this.text = text;
        this.displays = displays;
        this.size = size;
    }
    /** A list of names that may repeat (each is kept once). */
    static from(entries) {
        const builder = new ListBuilder(new Set());
        builder.add(entries);
        return builder.finish();
    }
    /** A list whose names are known to be distinct (the upstream's project list), read batch by batch. */
    static async fromBatches(batches) {
        const builder = new ListBuilder(null);
        for await (const batch of batches)
            builder.add(batch);
        return builder.finish();
    }
    hit(normalized) {
        return { normalized, name: this.displays.get(normalized) ?? normalized };
    }
    /** Names whose normalized form contains `query` (already normalized), skipping those in `exclude`. */
    search(query, offset, limit, exclude) {
        const hits = [];
        if (!query || query.includes('\n'))
            return { total: 0, hits };
        const { text } = this;
        const exactAt = exclude.has(query) ? -1 : text.indexOf(`\n${query}\n`);
        const exact = exactAt >= 0 ? exactAt + 1 : -1;
        let total = 0;
        if (exact >= 0) {
            if (offset === 0 && limit > 0)
                hits.push(this.hit(query));
            total++;
        }
        const checkExcluded = exclude.size > 0;
        let pos = 1;
        for (;;) {
            const at = text.indexOf(query, pos);
            if (at < 0)
                break;
            const end = text.indexOf('\n', at);
            pos = end + 1;
            // The exact match's first occurrence is its line's start.
            if (at === exact)
                continue;
            const wanted = total >= offset && hits.length < limit;
            if (checkExcluded || wanted) {
                const name = text.slice(text.lastIndexOf('\n', at) + 1, end);
                if (checkExcluded && exclude.has(name))
                    continue;
                if (wanted)
                    hits.push(this.hit(name));
            }
            total++;
        }
        return { total, hits };
    }
}
/** Collects names into a NameList; with `seen`, each name once. */
class ListBuilder {
    seen;
    chunks = [];
    displays = new Map();
    size = 0;
    constructor(seen) {
        this.seen = seen;
    }
    add(entries) {
        let chunk = '';
        for (const entry of entries) {
            if (/[\n\r]/.test(entry.name))
                continue;
            const normalized = entry.normalized ?? normalizeName(entry.name);
            if (this.seen) {
                if (this.seen.has(normalized))
                    continue;
                this.seen.add(normalized);
            }
            if (entry.name !== normalized)
                this.displays.set(normalized, entry.name);
            chunk += `${normalized}\n`;
            this.size++;
        }
        this.chunks.push(chunk);
    }
    finish() {
        return new NameList(`\n${this.chunks.join('')}`, this.displays, this.size);
    }
}
/** What people type → the normalized form names are compared in; empty when nothing searchable is left. */
export function normalizeQuery(raw) {
    return raw
        .trim()
        .toLowerCase()
        .replace(/[\t\n\r]/g, '')
        .replace(/[-_.\s]+/g, '-')
        .slice(0, 200);
}
