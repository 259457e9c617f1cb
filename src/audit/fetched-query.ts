/**
 * `larder audit fetched`: which downloads a PEP 508 requirement selects (the project name normalized, a
 * PEP 440 specifier set against the version in the file name), since a date, and the rows it prints.
 */
import { matchesRelease, parseRequirement, type Requirement } from '../model/requirements.js';
import { normalizeName } from '../model/names.js';
import type { AuditStore, DownloadRecord } from '../store/audit-store.js';

/** Records read per query to the store. */
const PAGE = 5000;

export class QueryError extends Error {}

/** `YYYY-MM-DD` (00:00 UTC) or an ISO date-time (`YYYY-MM-DDTHH:MM[:SS[.mmm]][Z|±HH:MM]`, UTC when no zone). */
export function parseSince(text: string): number {
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)(Z|[+-]\d{2}:\d{2})?)?$/.exec(text.trim());
  const day = match ? Date.parse(`${match[1]}T00:00Z`) : Number.NaN;
  // Date.parse rolls 2026-02-30 over to March: a day that does not exist is refused.
  const realDay = !Number.isNaN(day) && new Date(day).toISOString().slice(0, 10) === match![1];
  const ms = realDay ? Date.parse(`${match![1]}T${match![2] ?? '00:00'}${match![3] ?? 'Z'}`) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new QueryError(`--since '${text}' is not a date such as 2026-03-01 or a date-time such as 2026-03-01T14:30Z`);
  }
  return ms;
}

export function parseFetchedRequirement(text: string): Requirement {
  try {
    return parseRequirement(text, 'litellm==1.82.* or requests>=2,<3');
  } catch (err) {
    throw new QueryError((err as Error).message);
  }
}

/** The project a requirement names when it is no glob (so the store reads that project only). */
function literalProject(requirement: Requirement): string | undefined {
  const name = /^[A-Za-z0-9._*?-]+/.exec(requirement.text)?.[0];
  return name && !/[*?]/.test(name) ? normalizeName(name) : undefined;
}

/** Every retained download the requirement matches, at or after `since`, oldest first. */
export async function fetched(store: AuditStore, requirement: Requirement, since: number): Promise<DownloadRecord[]> {
  const project = literalProject(requirement);
  const found: DownloadRecord[] = [];
  let from = since;
  let skip = 0;
  for (;;) {
    const page = await store.downloads({ since: from, project, limit: PAGE + skip });
    const fresh = page.slice(skip);
    for (const record of fresh) if (matchesRelease(requirement, record.project, record.version)) found.push(record);
    if (page.length < PAGE + skip) return found;
    // The next page starts at the last time read; the records of that millisecond already read are skipped.
    from = page[page.length - 1]!.at;
    skip = page.filter((r) => r.at === from).length;
  }
}

/** `2026-03-01 14:30:05` (UTC). */
export const auditTime = (at: number) => new Date(at).toISOString().slice(0, 19).replace('T', ' ');

export const FETCHED_HEADER = ['TIME (UTC)', 'CLIENT', 'USER', 'TOKEN', 'PROJECT', 'VERSION', 'FILENAME', 'SHA256'];

export function fetchedRow(record: DownloadRecord): string[] {
  return [auditTime(record.at), record.client, record.user, record.token ?? '-', record.project, record.version ?? '-', record.filename, record.sha256 ?? '-'];
}
