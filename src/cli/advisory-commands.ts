/**
 * `larder advisories …`: import OSV's advisory export (replacing the set; a running server applies it at
 * once), say what is imported, and report the cached upstream files the advisories name.
 */
import { systemClock } from '../base/clock.js';
import type { Config } from '../config/schema.js';
import { Advisories } from '../policy/advisories.js';
import { isMalware } from '../policy/advisory-index.js';
import { readOsvZip } from '../policy/osv-import.js';
import { versionFromFilename } from '../model/filenames.js';
import { normalizeName, type ProjectName } from '../model/names.js';
import type { AdvisoryEntry } from '../store/advisory-store.js';
import { cachedFileProject } from '../store/namespaced-cached-files.js';
import type { Storage } from '../store/storage.js';
import type { Command } from './command.js';
import { operator } from './policy-commands.js';
import { table } from './table.js';

/** `2026-06-01 12:00:00 UTC`. */
const readableTime = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

function blockingLine(config: Config): string {
  const malware = config.blockMalware ? 'malware blocked' : 'malware not blocked (LARDER_BLOCK_MALWARE=false)';
  const vulnerable =
    config.blockVulnerable === null
      ? 'vulnerabilities not blocked (LARDER_BLOCK_VULNERABLE=off)'
      : `vulnerabilities of severity ${config.blockVulnerable} or worse blocked`;
  return `${malware}; ${vulnerable}`;
}

/** What `status` and `report` say depends on these. */
const DECISION_SETTINGS = ['data', 'databaseUrl', 'blockMalware', 'blockVulnerable'] as const;

const severityText = (advisory: AdvisoryEntry) => advisory.severity ?? (isMalware(advisory.id) ? 'malware' : 'unknown');

/** The upstream files in the cache, once each (an upstream other than the first keeps its own records). */
async function cachedUpstreamFiles(storage: Storage, config: Config): Promise<{ project: string; filename: string }[]> {
  const seen = new Set<string>();
  const files: { project: string; filename: string }[] = [];
  const merged = new Set<string>(config.mergeAllowList.map(normalizeName));
  const privateNames = new Map<string, boolean>();
  for await (const { id } of storage.cachedFiles.entries()) {
    if (id.variant !== 'file') continue;
    const project = cachedFileProject(id);
    const key = `${project}\u0000${id.filename}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!privateNames.has(project)) privateNames.set(project, !merged.has(project) && (await storage.index.getProject(project as ProjectName)) !== undefined);
    // Advisories apply to upstream projects only.
    if (!privateNames.get(project)) files.push({ project, filename: id.filename });
  }
  return files.sort((a, b) => (a.project === b.project ? a.filename.localeCompare(b.filename) : a.project < b.project ? -1 : 1));
}

export const ADVISORY_COMMANDS: Record<string, Command> = {
  'advisories import': {
    usage: 'larder advisories import FILE',
    summary: "import OSV's advisory export for PyPI (all.zip), replacing the advisories imported before",
    description:
      'FILE is https://osv-vulnerabilities.storage.googleapis.com/PyPI/all.zip, downloaded on a connected machine and carried over. A running server applies the new set within seconds (docs/advisories.md).',
    minArgs: 1,
    maxArgs: 1,
    async run([file], _values, { advisories }, io) {
      const read = await readOsvZip(file!);
      const info = { advisories: read.advisories, importedAt: new Date(systemClock.now()).toISOString(), source: file!, by: operator(io) };
      await advisories.replaceAll(read.entries, info);
      const projects = new Set(read.entries.map((e) => e.project)).size;
      io.out(`loaded ${plural(read.advisories, 'advisory', 'advisories')} naming ${plural(projects, 'PyPI project')} from ${file}`);
      for (const { name, reason } of read.skipped.slice(0, 10)) io.out(`skipped ${name}: ${reason}`);
      if (read.skipped.length > 10) io.out(`skipped ${read.skipped.length - 10} more documents`);
    },
  },
  'advisories status': {
    usage: 'larder advisories status',
    summary: 'say how many advisories are imported, when and from what, and what they block',
    settings: DECISION_SETTINGS,
    minArgs: 0,
    maxArgs: 0,
    async run(_args, _values, { advisories }, io, config) {
      const info = await advisories.info();
      if (!info) {
        io.out('no advisories imported (larder advisories import all.zip)');
      } else {
        io.out(`${plural(info.advisories, 'advisory', 'advisories')}, imported ${readableTime(info.importedAt)} from ${info.source} by ${info.by}`);
      }
      io.out(blockingLine(config));
    },
  },
  'advisories report': {
    usage: 'larder advisories report',
    summary: 'list every cached upstream file the advisories name: project, version, file, advisory, severity, blocked or not',
    settings: DECISION_SETTINGS,
    minArgs: 0,
    maxArgs: 0,
    async run(_args, _values, storage, io, config) {
      const decisions = new Advisories(config, storage.advisories, storage.policy);
      await decisions.refresh();
      const rows: string[][] = [];
      for (const { project, filename } of await cachedUpstreamFiles(storage, config)) {
        const version = versionFromFilename(filename);
        if (version === null || !decisions.names(project)) continue;
        const projectBlock = decisions.projectBlock(project);
        for (const { advisory, reason, exempted } of decisions.findings(project, version)) {
          const status = projectBlock?.advisory.id === advisory.id ? 'blocked' : reason === null ? 'not blocked' : exempted ? 'exempted' : 'blocked';
          rows.push([project, version, filename, advisory.id, severityText(advisory), status]);
        }
      }
      if (!rows.length) return io.out('no cached file is named by an advisory');
      for (const line of table([['PROJECT', 'VERSION', 'FILE', 'ADVISORY', 'SEVERITY', 'STATUS'], ...rows])) io.out(line);
    },
  },
};
