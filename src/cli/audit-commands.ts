/** `larder audit fetched`: who downloaded the files a requirement names, when and from where (docs/audit.md). */
import { FETCHED_HEADER, fetched, fetchedRow, parseFetchedRequirement, parseSince, QueryError } from '../audit/fetched-query.js';
import { UsageError } from './args.js';
import type { Command } from './command.js';
import { table } from './table.js';

function usageErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof QueryError) throw new UsageError(err.message);
    throw err;
  }
}

export const AUDIT_COMMANDS: Record<string, Command> = {
  'audit fetched': {
    usage: 'larder audit fetched REQUIREMENT [--since DATE]',
    summary: 'list the recorded downloads of the files a requirement matches (e.g. litellm==1.82.*)',
    description:
      'REQUIREMENT is a PEP 508 requirement: a project name (normalized) and optionally a PEP 440 specifier set, matched against the version in each file name. Times are UTC.',
    options: {
      since: { type: 'string', value: 'DATE', help: 'only downloads from this date (YYYY-MM-DD, 00:00 UTC) or ISO date-time (2026-03-01T14:30Z) on' },
    },
    settings: ['data', 'databaseUrl'],
    minArgs: 1,
    maxArgs: 1,
    async run([spec], values, { audit }, io) {
      const requirement = usageErrors(() => parseFetchedRequirement(spec!));
      const since = typeof values.since === 'string' ? usageErrors(() => parseSince(values.since as string)) : 0;
      const records = await fetched(audit, requirement, since);
      if (records.length === 0) return io.out(`no recorded downloads of ${requirement.text}${since ? ` since ${new Date(since).toISOString()}` : ''}`);
      for (const line of table([FETCHED_HEADER, ...records.map(fetchedRow)])) io.out(line);
    },
  },
};
