/**
 * A searchable list of project names held as one string of `normalized<TAB>display<LF>` lines (the display
 * name left empty when it equals the normalized one): 600,000 names take about 10–20 MB and a substring
 * scan of all of them a few milliseconds.
 */
import type { ProjectListEntry } from '../model/documents.js';
import { normalizeName } from '../model/names.js';

export interface NameHit {
  name: string;
  normalized: string;
}

export interface NameMatches {
  /** How many names match (the exact match included). */
  total: number;
  /** The matches in [offset, offset + limit): the exact match first, then list order. */
  hits: NameHit[];
}

export class NameList {
  private constructor(
    private readonly text: string,
    readonly size: number,
  ) {}

  /** `parts` are joined as they come, so a list read in batches is never held twice as entries. */
  static from(entries: Iterable<ProjectListEntry>): NameList {
    const parts: string[] = [];
    const seen = new Set<string>();
    for (const entry of entries) {
      if (/[\t\n\r]/.test(entry.name)) continue;
      const normalized = entry.normalized ?? normalizeName(entry.name);
      if (seen.has(normalized)) continue;
      seen.add(normalized);
      parts.push(`${normalized}\t${entry.name === normalized ? '' : entry.name}\n`);
    }
    return new NameList(`\n${parts.join('')}`, parts.length);
  }

  static async fromBatches(batches: AsyncIterable<readonly ProjectListEntry[]>): Promise<NameList> {
    const chunks: string[] = [];
    let size = 0;
    for await (const batch of batches) {
      let chunk = '';
      for (const entry of batch) {
        if (/[\t\n\r]/.test(entry.name)) continue;
        const normalized = entry.normalized ?? normalizeName(entry.name);
        chunk += `${normalized}\t${entry.name === normalized ? '' : entry.name}\n`;
        size++;
      }
      chunks.push(chunk);
    }
    return new NameList(`\n${chunks.join('')}`, size);
  }

  private hitAt(lineStart: number, tab: number): NameHit {
    const normalized = this.text.slice(lineStart, tab);
    const display = this.text.slice(tab + 1, this.text.indexOf('\n', tab));
    return { normalized, name: display || normalized };
  }

  /**
   * Names whose normalized form contains `query` (already normalized), skipping those in `exclude`.
   */
  search(query: string, offset: number, limit: number, exclude: ReadonlySet<string>): NameMatches {
    const hits: NameHit[] = [];
    if (!query) return { total: 0, hits };
    const { text } = this;
    const exactAt = text.indexOf(`\n${query}\t`);
    const exact = exactAt >= 0 && !exclude.has(query) ? exactAt + 1 : -1;
    let total = 0;
    const take = () => total >= offset && hits.length < limit;
    if (exact >= 0) {
      if (take()) hits.push(this.hitAt(exact, exact + query.length));
      total++;
    }
    let pos = 1;
    for (;;) {
      const at = text.indexOf(query, pos);
      if (at < 0) break;
      const lineStart = text.lastIndexOf('\n', at) + 1;
      const tab = text.indexOf('\t', lineStart);
      pos = text.indexOf('\n', tab) + 1;
      // A match in the display part only means the normalized part (earlier on the line) had none.
      if (at + query.length > tab || lineStart === exact) continue;
      if (exclude.size > 0 && exclude.has(text.slice(lineStart, tab))) continue;
      if (take()) hits.push(this.hitAt(lineStart, tab));
      total++;
    }
    return { total, hits };
  }
}

/** What people type → the normalized form names are compared in; empty when nothing searchable is left. */
export function normalizeQuery(raw: string): string {
  return raw
    .trim()
    .toLowerCase()
    .replace(/[\t\n\r]/g, '')
    .replace(/[-_.\s]+/g, '-')
    .slice(0, 200);
}
