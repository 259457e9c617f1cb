/**
 * `/search/`: projects whose normalized name contains the query: private projects first, then cached
 * upstream projects, then the rest of the stored upstream project list. The lists of cached and upstream
 * names are built lazily and rebuilt only when what they list has changed (the upstream list: a new
 * version of it; the cached projects: a new count, at most every few seconds).
 */
import type { Clock } from '../base/clock.js';
import type { ProjectListBatch } from '../model/documents.js';
import { type NameHit, NameList } from './name-list.js';

export type ProjectKind = 'private' | 'cached' | 'upstream';

export interface SearchHit extends NameHit {
  kind: ProjectKind;
}

export interface SearchResult {
  total: number;
  hits: SearchHit[];
}

/** Where the names come from. */
export interface SearchSources {
  privateProjects(): AsyncIterable<{ name: string; displayName: string }>;
  cachedNames(): Iterable<string>;
  cachedCount(): number;
  /** A string naming the stored upstream list's version; null when none is stored. */
  upstreamListVersion(): string | null;
  upstreamList(): AsyncIterable<ProjectListBatch>;
}

/** The cached projects' list is rebuilt at most this often. */
const CACHED_REBUILD_MS = 5_000;

interface Built {
  key: string;
  list: NameList;
  at: number;
}

export class ProjectSearch {
  private cached: Built | null = null;
  private upstream: Built | null = null;
  private building: { key: string; done: Promise<Built> } | null = null;

  constructor(
    private readonly sources: SearchSources,
    private readonly clock: Clock,
  ) {}

  /** Starts building the upstream list's search structure, if it is stale, without waiting for it. */
  warm(): void {
    this.upstreamList().catch(() => {});
  }

  /** How many upstream projects have a cached page (as of the last rebuild of their list). */
  cachedProjects(): number {
    return this.cachedList().size;
  }

  private cachedList(): NameList {
    const now = this.clock.now();
    const key = String(this.sources.cachedCount());
    if (!this.cached || (this.cached.key !== key && now - this.cached.at >= CACHED_REBUILD_MS)) {
      this.cached = { key, at: now, list: NameList.from(Array.from(this.sources.cachedNames(), (name) => ({ name }))) };
    }
    return this.cached.list;
  }

  private async upstreamList(): Promise<NameList | null> {
    const key = this.sources.upstreamListVersion();
    if (key === null) return null;
    if (this.upstream?.key === key) return this.upstream.list;
    if (this.building?.key !== key) {
      const done = NameList.fromBatches(this.sources.upstreamList()).then((list) => ({ key, list, at: this.clock.now() }));
      const building = { key, done };
      this.building = building;
      void done.then(
        (built) => {
          this.upstream = built;
          if (this.building === building) this.building = null;
        },
        () => {
          if (this.building === building) this.building = null;
        },
      );
    }
    return (await this.building!.done).list;
  }

  async search(query: string, offset: number, limit: number): Promise<SearchResult> {
    const privateProjects: { name: string; normalized: string }[] = [];
    for await (const p of this.sources.privateProjects()) privateProjects.push({ name: p.displayName, normalized: p.name });
    const groups: [ProjectKind, NameList | null][] = [
      ['private', NameList.from(privateProjects)],
      ['cached', this.cachedList()],
      // A list that cannot be read leaves the search to the private and cached projects.
      ['upstream', await this.upstreamList().catch(() => null)],
    ];
    // Each project is listed once, in the first group that has it.
    const listed = new Set<string>();
    const hits: SearchHit[] = [];
    let total = 0;
    for (const [kind, list] of groups) {
      if (!list) continue;
      const found = list.search(query, Math.max(0, offset - total), Math.max(0, limit - hits.length), listed);
      for (const hit of found.hits) hits.push({ ...hit, kind });
      total += found.total;
      if (kind === 'private') for (const p of privateProjects) listed.add(p.normalized);
      if (kind === 'cached' && list.size > 0) {
        for (const hit of list.search(query, 0, Number.MAX_SAFE_INTEGER, listed).hits) listed.add(hit.normalized);
      }
    }
    return { total, hits };
  }
}
