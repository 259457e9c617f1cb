/**
 * What larder keeps of the imported security advisories (OSV): one entry per advisory and upstream project
 * it names, and when the set was imported. An import replaces the whole set at once; reads see other
 * processes' imports (the CLI imports while the server runs).
 */

export type SeverityBand = 'low' | 'moderate' | 'high' | 'critical';

/** One OSV range of type ECOSYSTEM: its events in the order given. */
export interface RangeEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
}

export interface AdvisoryEntry {
  /** The OSV id (`MAL-2024-1234`, `GHSA-…`, `PYSEC-…`). */
  id: string;
  /** Normalized project name. */
  project: string;
  summary: string;
  aliases: string[];
  /** ISO 8601, as the advisory says. */
  modified: string;
  /** database_specific.severity, else the CVSS 3.x base score's band; null when neither is known. */
  severity: SeverityBand | null;
  /** The CVSS 3.x base score, when the advisory has a vector. */
  score: number | null;
  /** The ECOSYSTEM ranges naming this project, each a list of events. */
  ranges: RangeEvent[][];
  /** Versions named one by one. */
  versions: string[];
}

export interface AdvisorySetInfo {
  /** How many advisories the import loaded (each may name several projects). */
  advisories: number;
  /** ISO 8601 UTC. */
  importedAt: string;
  /** The file imported, as given. */
  source: string;
  by: string;
}

export interface AdvisoryStore {
  /** Replaces the whole set, in one transaction. */
  replaceAll(entries: readonly AdvisoryEntry[], info: AdvisorySetInfo): Promise<void>;
  entries(): Promise<AdvisoryEntry[]>;
  /** Undefined when nothing was ever imported. */
  info(): Promise<AdvisorySetInfo | undefined>;
  /** A number that changes with every import, by this process or another (synchronous: kept in memory). */
  generation(): number;
}
