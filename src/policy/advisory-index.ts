/**
 * The imported advisories indexed by normalized project name, and which of them affect a version: OSV's
 * ECOSYSTEM range evaluation (events in PEP 440 order; `introduced` opens, `fixed` closes at, `last_affected`
 * closes after) or a version listed one by one. A project's ranges are parsed once, on its first lookup.
 */
import { canonicalVersion, OrderedVersion } from '../model/versions.js';
import type { AdvisoryEntry, RangeEvent } from '../store/advisory-store.js';

export const isMalware = (id: string): boolean => id.startsWith('MAL-');

interface ParsedEvent {
  kind: 'introduced' | 'fixed' | 'last_affected';
  /** null: `introduced: "0"`, before every version. */
  at: OrderedVersion | null;
}

interface ParsedEntry {
  entry: AdvisoryEntry;
  ranges: ParsedEvent[][];
  versions: Set<string>;
  coversEveryVersion: boolean;
}

function parseEvent(event: RangeEvent): ParsedEvent | null {
  for (const kind of ['introduced', 'fixed', 'last_affected'] as const) {
    const value = event[kind];
    if (value === undefined) continue;
    if (kind === 'introduced' && value === '0') return { kind, at: null };
    const at = new OrderedVersion(value);
    return at.valid ? { kind, at } : null;
  }
  return null;
}

function order(a: ParsedEvent, b: ParsedEvent): number {
  if (a.at === null || b.at === null) return a.at === b.at ? 0 : a.at === null ? -1 : 1;
  return a.at.compare(b.at);
}

function parseEntry(entry: AdvisoryEntry): ParsedEntry {
  const ranges = entry.ranges.map((events) => events.flatMap((e) => parseEvent(e) ?? []).sort(order));
  const coversEveryVersion = ranges.some(
    (events) => events.some((e) => e.kind === 'introduced' && e.at === null) && events.every((e) => e.kind === 'introduced'),
  );
  return { entry, ranges, versions: new Set(entry.versions.map(canonicalVersion)), coversEveryVersion };
}

function inRange(events: readonly ParsedEvent[], version: OrderedVersion): boolean {
  let affected = false;
  for (const event of events) {
    const cmp = event.at === null ? 1 : version.compare(event.at);
    if (event.kind === 'introduced' && cmp >= 0) affected = true;
    else if (event.kind === 'fixed' && cmp >= 0) affected = false;
    else if (event.kind === 'last_affected' && cmp > 0) affected = false;
  }
  return affected;
}

/**
 * The entry without the listed versions its own ranges already cover: OSV lists every affected version of
 * a PyPI range besides the range, and those lists are most of an export's size. What the entry names is
 * unchanged.
 */
export function withoutCoveredVersions(entry: AdvisoryEntry): AdvisoryEntry {
  if (!entry.versions.length || !entry.ranges.length) return entry;
  const { ranges } = parseEntry({ ...entry, versions: [] });
  const versions = entry.versions.filter((v) => {
    const ordered = new OrderedVersion(v);
    return !ordered.valid || !ranges.some((events) => inRange(events, ordered));
  });
  return versions.length === entry.versions.length ? entry : { ...entry, versions };
}

export class AdvisoryIndex {
  private readonly byProject = new Map<string, AdvisoryEntry[]>();
  private readonly parsed = new Map<string, ParsedEntry[]>();

  constructor(entries: Iterable<AdvisoryEntry>) {
    for (const entry of entries) {
      const known = this.byProject.get(entry.project);
      if (known) known.push(entry);
      else this.byProject.set(entry.project, [entry]);
    }
  }

  get size(): number {
    return this.byProject.size;
  }

  has(project: string): boolean {
    return this.byProject.has(project);
  }

  private entriesOf(project: string): ParsedEntry[] {
    let parsed = this.parsed.get(project);
    if (!parsed) {
      parsed = (this.byProject.get(project) ?? []).map(parseEntry);
      this.parsed.set(project, parsed);
    }
    return parsed;
  }

  /** The advisories naming this version of the project. */
  affecting(project: string, version: string): AdvisoryEntry[] {
    if (!this.byProject.has(project)) return [];
    const ordered = new OrderedVersion(version);
    const canonical = canonicalVersion(version);
    return this.entriesOf(project)
      .filter((p) => p.coversEveryVersion || p.versions.has(canonical) || (ordered.valid && p.ranges.some((events) => inRange(events, ordered))))
      .map((p) => p.entry);
  }

  /** The advisories whose ranges cover every version of the project (`introduced: "0"` with no end). */
  coveringEveryVersion(project: string): AdvisoryEntry[] {
    if (!this.byProject.has(project)) return [];
    return this.entriesOf(project)
      .filter((p) => p.coversEveryVersion)
      .map((p) => p.entry);
  }

  /** The lowest `fixed` version above this one among the advisory's ranges, if any. */
  fixedAfter(entry: AdvisoryEntry, version: string): string | null {
    const ordered = new OrderedVersion(version);
    let best: OrderedVersion | null = null;
    for (const events of entry.ranges) {
      for (const event of events) {
        if (event.fixed === undefined) continue;
        const fixed = new OrderedVersion(event.fixed);
        if (fixed.valid && ordered.valid && fixed.compare(ordered) > 0 && (best === null || fixed.compare(best) < 0)) best = fixed;
      }
    }
    return best?.version ?? null;
  }
}
