/** OSV advisory documents and zips in the layout of OSV's per-ecosystem export (one JSON document per advisory), for the advisory tests. */
import { join } from 'node:path';
import { writeZip } from './upload-archives.js';

export interface OsvFields {
  id: string;
  package: string;
  /** ECOSYSTEM range events, e.g. [{ introduced: '0' }, { fixed: '2.0' }]. */
  events?: Record<string, string>[];
  versions?: string[];
  /** database_specific.severity (GHSA's words). */
  databaseSeverity?: string;
  /** A CVSS v3 vector. */
  cvss?: string;
  summary?: string;
}

export function osvDocument(fields: OsvFields): Record<string, unknown> {
  return {
    schema_version: '1.6.0',
    id: fields.id,
    modified: '2026-05-01T00:00:00Z',
    summary: fields.summary ?? `advisory ${fields.id}`,
    aliases: [`CVE-2026-${fields.id.length}`],
    affected: [
      {
        package: { ecosystem: 'PyPI', name: fields.package },
        ...(fields.events ? { ranges: [{ type: 'ECOSYSTEM', events: fields.events }] } : {}),
        ...(fields.versions ? { versions: fields.versions } : {}),
      },
    ],
    ...(fields.cvss ? { severity: [{ type: 'CVSS_V3', score: fields.cvss }] } : {}),
    ...(fields.databaseSeverity ? { database_specific: { severity: fields.databaseSeverity } } : {}),
  };
}

/** Writes `name` in `dir` holding one `<id>.json` per advisory (and any extra entries as given). */
export function writeOsvZip(dir: string, name: string, advisories: OsvFields[], extra: Record<string, string> = {}): Promise<string> {
  const entries: Record<string, string> = { ...extra };
  for (const fields of advisories) entries[`${fields.id}.json`] = JSON.stringify(osvDocument(fields));
  return writeZip(join(dir, name), entries);
}
