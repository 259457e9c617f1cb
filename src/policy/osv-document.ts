/**
 * One OSV advisory document (https://ossf.github.io/osv-schema/) read into the entries larder keeps: one per
 * PyPI project it names, with that project's ECOSYSTEM ranges and listed versions, and the severity —
 * database_specific.severity when it is a known word, else the band of the CVSS 3.x base score. Fields
 * larder does not use are dropped; texts and lists are cut to bounds.
 */
import { normalizeName } from '../model/names.js';
import type { AdvisoryEntry, RangeEvent, SeverityBand } from '../store/advisory-store.js';
import { cvss3BaseScore, scoreBand } from './cvss.js';

const MAX_SUMMARY = 500;
const MAX_ALIASES = 50;
const MAX_ID = 100;
const MAX_VERSION = 255;
/** Versions named one by one, and range events, per project: real advisories name a few hundred at most. */
const MAX_LISTED = 20_000;

const DATABASE_WORDS: Readonly<Record<string, SeverityBand>> = { LOW: 'low', MODERATE: 'moderate', MEDIUM: 'moderate', HIGH: 'high', CRITICAL: 'critical' };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown, max: number): string => (typeof value === 'string' ? value.slice(0, max) : '');
const version = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 && value.length <= MAX_VERSION ? value : null);

export class OsvDocumentError extends Error {}

function severityOf(doc: Json): { severity: SeverityBand | null; score: number | null } {
  let score: number | null = null;
  for (const item of list(doc.severity)) {
    if (!isObject(item) || typeof item.score !== 'string' || !/^CVSS_V3/.test(String(item.type))) continue;
    score = cvss3BaseScore(item.score);
    if (score !== null) break;
  }
  const word = isObject(doc.database_specific) ? doc.database_specific.severity : undefined;
  const named = typeof word === 'string' ? DATABASE_WORDS[word.toUpperCase()] : undefined;
  return { severity: named ?? (score === null ? null : scoreBand(score)), score };
}

function eventsOf(range: Json): RangeEvent[] {
  const events: RangeEvent[] = [];
  for (const event of list(range.events)) {
    if (!isObject(event)) continue;
    for (const kind of ['introduced', 'fixed', 'last_affected'] as const) {
      const v = version(event[kind]);
      if (v !== null) events.push({ [kind]: v });
    }
  }
  return events;
}

/** The entries of one document; [] when it names no PyPI project. Throws OsvDocumentError when it is not an OSV document. */
export function readOsvDocument(json: string): AdvisoryEntry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (err) {
    throw new OsvDocumentError(`not JSON (${(err as Error).message})`);
  }
  if (!isObject(doc) || typeof doc.id !== 'string' || doc.id.length === 0 || doc.id.length > MAX_ID) {
    throw new OsvDocumentError('not an OSV advisory (no id)');
  }
  if (doc.withdrawn !== undefined && doc.withdrawn !== null) return [];
  const byProject = new Map<string, AdvisoryEntry>();
  const { severity, score } = severityOf(doc);
  for (const affected of list(doc.affected)) {
    if (!isObject(affected) || !isObject(affected.package) || affected.package.ecosystem !== 'PyPI') continue;
    const name = affected.package.name;
    if (typeof name !== 'string' || name.length === 0 || name.length > 200) continue;
    const project = normalizeName(name);
    let entry = byProject.get(project);
    if (!entry) {
      entry = {
        id: doc.id,
        project,
        summary: text(doc.summary, MAX_SUMMARY) || text(doc.details, MAX_SUMMARY),
        aliases: list(doc.aliases)
          .map((a) => text(a, MAX_ID))
          .filter(Boolean)
          .slice(0, MAX_ALIASES),
        modified: text(doc.modified, 40),
        severity,
        score,
        ranges: [],
        versions: [],
      };
      byProject.set(project, entry);
    }
    for (const range of list(affected.ranges)) {
      if (!isObject(range) || range.type !== 'ECOSYSTEM') continue;
      const events = eventsOf(range);
      if (events.length) entry.ranges.push(events.slice(0, MAX_LISTED));
    }
    for (const v of list(affected.versions)) {
      const listed = version(v);
      if (listed !== null && entry.versions.length < MAX_LISTED) entry.versions.push(listed);
    }
  }
  return [...byProject.values()];
}
