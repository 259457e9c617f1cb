/** `larder mirror add|sync|list|remove`: mirror sets that fill larder for an offline site from lock files and requirements. */
import { resolve } from 'node:path';
import { systemClock } from '../base/clock.js';
import { formatBytes } from '../base/units.js';
import { parseDuration, type Config } from '../config/schema.js';
import { createLogger } from '../logger.js';
import { InputError } from '../mirror/requirement.js';
import { openMirrorSource } from '../mirror/mirror-source.js';
import { summarize } from '../mirror/plan.js';
import type { ResolutionReads } from '../mirror/source-index.js';
import { syncMirrorSet, targetsOf, type SyncOutcome } from '../mirror/sync.js';
import { checkTarget, targetLabel } from '../mirror/target.js';
import { mirrorFileKey, pinnedFiles, type MirrorSetRecord } from '../store/mirror-set-store.js';
import type { Storage } from '../store/storage.js';
import { Progress } from '../transfer/progress.js';
import { UsageError } from './args.js';
import type { Command, Io } from './command.js';
import type { OptionSpecs } from './options.js';
import { PROGRESS_OPTION } from './transfer-commands.js';

export class MirrorIncomplete extends Error {}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
}

const SYNC_OPTIONS: OptionSpecs = {
  'dry-run': {
    type: 'boolean',
    help: 'print the plan (every file with its size) and store no file; the METADATA of a wheel with no .metadata file is read by range requests (or a temporary download)',
  },
  jobs: { type: 'string', value: 'N', help: 'downloads at a time', default: '4' },
  ...PROGRESS_OPTION,
};

/** Mirror sets fetch from the upstream, so their help shows where it is too. */
const MIRROR_SETTINGS = ['data', 'databaseUrl', 'blobStore', 'upstream', 'upstreams'] as const;

async function runSync(set: MirrorSetRecord, values: Record<string, unknown>, storage: Storage, io: Io, config: Config): Promise<void> {
  const dryRun = values['dry-run'] === true;
  const jobs = values.jobs === undefined ? 4 : Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 64) throw new UsageError(`--jobs must be a whole number from 1 to 64, not '${values.jobs}'`);
  const interval = values['progress-interval'];
  const logger = createLogger({ logLevel: 'error' }, process.stderr);
  const source = await openMirrorSource(config, storage, logger, systemClock);
  const progress = new Progress({
    label: `mirror ${set.name}${dryRun ? ' (dry run)' : ''}`,
    stream: process.stderr,
    rate: true,
    intervalMs: interval === undefined ? undefined : parseDuration(interval, '--progress-interval'),
  });
  let outcome: SyncOutcome;
  try {
    outcome = await syncMirrorSet(set, storage, source, { dryRun, jobs, progress, clock: systemClock });
    // A dry run that found everything it read in the cache received nothing: no progress line for it.
    if (!dryRun || outcome.reads.bytes > 0) progress.done();
    else progress.abort();
  } catch (err) {
    progress.abort();
    if (err instanceof InputError) throw new UsageError(err.message);
    throw err;
  } finally {
    await source.close();
  }
  report(outcome, dryRun, io);
}

function report(outcome: SyncOutcome, dryRun: boolean, io: Io): void {
  const { record, files, problems, skipped } = outcome;
  for (const line of skipped) io.out(`skipped: ${line}`);
  if (dryRun) {
    for (const f of files) {
      const size = f.size === null ? '?' : formatBytes(f.size);
      io.out(`${f.project}  ${f.filename}${f.variant === 'metadata' ? '.metadata' : ''}  ${size}  ${f.targets.join(' ')}`);
    }
  }
  const labels = targetsOf(record).map(targetLabel);
  const rows = summarize(files, labels).map((s) => [s.target, String(s.projects), String(s.files), formatBytes(s.bytes)]);
  const all = files.filter((f) => f.variant === 'file');
  rows.push(['all targets', String(new Set(all.map((f) => f.project)).size), String(all.length), formatBytes(all.reduce((n, f) => n + (f.size ?? 0), 0))]);
  for (const line of table([['TARGET', 'PROJECTS', 'FILES', 'BYTES'], ...rows])) io.out(line);
  if (dryRun) {
    io.out(`dry run: no file stored; ${files.length} files planned (distribution files and their .metadata)`);
    const read = readFromUpstream(outcome.reads);
    if (read) io.out(`dry run: ${read}`);
  } else io.out(`mirror ${record.name}: fetched ${outcome.fetched} files (${formatBytes(outcome.bytes)}), ${outcome.present} were cached already`);
  if (problems.length) {
    io.out(`could not satisfy (${problems.length}):`);
    for (const p of problems) io.out(`  ${p}`);
    throw new MirrorIncomplete(`mirror set ${record.name} is incomplete: ${problems.length} problem${problems.length === 1 ? '' : 's'} listed above`);
  }
  if (!dryRun) io.out(`mirror ${record.name} is complete`);
}

/** What a dry run read from the upstream without keeping it, in words; null when it read nothing. */
function readFromUpstream(reads: ResolutionReads): string | null {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (reads.metadataRead) parts.push(plural(reads.metadataRead, '.metadata file'));
  const wheels = reads.wheelsByRanges + reads.wheelsDownloaded;
  if (wheels) {
    const how = [
      reads.wheelsByRanges ? `${reads.wheelsByRanges} by range requests` : '',
      reads.wheelsDownloaded ? `${reads.wheelsDownloaded} downloaded whole to a temporary file and removed (the upstream ignored the range request)` : '',
    ].filter(Boolean);
    parts.push(`the METADATA inside ${plural(wheels, 'wheel')}, ${how.join(', ')}`);
  }
  return parts.length ? `read from the upstream, nothing kept (${formatBytes(reads.bytes)} received): ${parts.join('; ')}` : null;
}

async function setNamed(storage: Storage, name: string): Promise<MirrorSetRecord> {
  const set = await storage.mirrorSets.get(name);
  if (!set) throw new UsageError(`no mirror set named '${name}' (see larder mirror list)`);
  return set;
}

export const MIRROR_COMMANDS: Record<string, Command> = {
  'mirror add': {
    usage:
      'larder mirror add NAME [-r FILE]... [--lock FILE]... [--python 3.11]... [--platform TAG]... [--sdists] [--versions newest|all] [--dry-run] [--jobs N]',
    summary: 'define a mirror set (air-gapped sites) and fetch everything it needs for every target',
    description: [
      'Inputs: requirements files (-r; pins, ranges, extras, markers, --hash, -r includes, -c constraints) are',
      'expanded: for every requirement the newest version (or all, --versions all) that has a file for the',
      'target, then its Requires-Dist with markers evaluated for the target, until nothing new. Lock files',
      '(--lock: pylock.toml, poetry.lock, uv.lock, pdm.lock) are taken as they are: their pins and hashes.',
      '',
      'Targets: every combination of --python and --platform (wheel platform tags such as',
      'manylinux_2_17_x86_64, musllinux_1_2_aarch64, macosx_11_0_arm64, win_amd64). A wheel is mirrored when its',
      'tags are compatible with a target as pip would judge them; sdists only with --sdists or when a version',
      'has no wheel for the target.',
      '',
      'Exits 0 when everything was fetched; otherwise 1 with a list of what could not be satisfied and why.',
      'Running it again fetches only what is missing. The files of a set are never evicted by LARDER_CACHE_MAX_SIZE.',
    ].join('\n'),
    options: {
      requirement: { type: 'string', short: 'r', multiple: true, value: 'FILE', help: 'a requirements file (repeatable)' },
      lock: { type: 'string', multiple: true, value: 'FILE', help: 'a lock file: pylock.toml, poetry.lock, uv.lock, pdm.lock (repeatable)' },
      python: { type: 'string', multiple: true, value: 'VERSION', help: 'a target Python version such as 3.11 (repeatable)' },
      platform: { type: 'string', multiple: true, value: 'TAG', help: 'a target wheel platform tag such as manylinux_2_17_x86_64 (repeatable)' },
      sdists: { type: 'boolean', help: 'also mirror sdists (without it, only for a version with no wheel for the target)' },
      versions: { type: 'string', value: 'newest|all', help: 'which versions of a requirement', default: 'newest' },
      ...SYNC_OPTIONS,
    },
    settings: MIRROR_SETTINGS,
    minArgs: 1,
    maxArgs: 1,
    async run([name], values, storage, io, config) {
      if (!NAME.test(name!)) throw new UsageError(`invalid mirror set name '${name}': use letters, digits, '.', '_' and '-'`);
      const requirements = ((values.requirement as string[] | undefined) ?? []).map((p) => resolve(p));
      const locks = ((values.lock as string[] | undefined) ?? []).map((p) => resolve(p));
      if (requirements.length + locks.length === 0) throw new UsageError('give at least one requirements file (-r FILE) or lock file (--lock FILE)');
      const pythons = (values.python as string[] | undefined) ?? [];
      const platforms = (values.platform as string[] | undefined) ?? [];
      if (!pythons.length || !platforms.length) throw new UsageError('give at least one --python VERSION and one --platform TAG');
      const versions = (values.versions as string | undefined) ?? 'newest';
      if (versions !== 'newest' && versions !== 'all') throw new UsageError(`--versions is 'newest' or 'all', not '${versions}'`);
      for (const python of pythons)
        for (const platform of platforms) {
          try {
            checkTarget({ python, platform });
          } catch (err) {
            throw new UsageError((err as Error).message);
          }
        }
      const old = await storage.mirrorSets.get(name!);
      const set: MirrorSetRecord = {
        name: name!,
        requirements,
        locks,
        pythons: [...new Set(pythons)],
        platforms: [...new Set(platforms)],
        sdists: values.sdists === true,
        versions,
        createdAt: old?.createdAt ?? new Date(systemClock.now()).toISOString(),
        lastSync: old?.lastSync ?? null,
        complete: false,
        files: old?.files ?? [],
        problems: [],
      };
      await runSync(set, values, storage, io, config);
    },
  },
  'mirror sync': {
    usage: 'larder mirror sync [NAME] [--dry-run] [--jobs N]',
    summary: 're-read the inputs of a mirror set (or of all) and fetch what is new',
    options: { ...SYNC_OPTIONS },
    settings: MIRROR_SETTINGS,
    minArgs: 0,
    maxArgs: 1,
    async run([name], values, storage, io, config) {
      const sets = name ? [await setNamed(storage, name)] : await storage.mirrorSets.list();
      if (sets.length === 0) return io.out('no mirror sets');
      const incomplete: string[] = [];
      for (const set of sets) {
        try {
          await runSync(set, values, storage, io, config);
        } catch (err) {
          if (!(err instanceof MirrorIncomplete) || sets.length === 1) throw err;
          incomplete.push(set.name);
        }
      }
      if (incomplete.length) throw new MirrorIncomplete(`incomplete mirror sets: ${incomplete.join(', ')}`);
    },
  },
  'mirror list': {
    usage: 'larder mirror list',
    summary: 'mirror sets: inputs, targets, files, bytes, last sync',
    minArgs: 0,
    maxArgs: 0,
    async run(_args, _values, storage, io) {
      const sets = await storage.mirrorSets.list();
      if (sets.length === 0) return io.out('no mirror sets');
      for (const set of sets) {
        const files = set.files.filter((f) => f.variant === 'file');
        const bytes = files.reduce((n, f) => n + (f.size ?? 0), 0);
        io.out(
          `${set.name}: ${files.length} files (${formatBytes(bytes)}), last sync ${set.lastSync ?? 'never'}${set.lastSync ? (set.complete ? ', complete' : `, incomplete (${set.problems.length} problems)`) : ''}`,
        );
        for (const input of [...set.requirements.map((r) => `-r ${r}`), ...set.locks.map((l) => `--lock ${l}`)]) io.out(`  input   ${input}`);
        io.out(`  targets ${targetsOf(set).map(targetLabel).join(' ')}${set.sdists ? ' (with sdists)' : ''}${set.versions === 'all' ? ' (all versions)' : ''}`);
      }
    },
  },
  'mirror remove': {
    usage: 'larder mirror remove NAME [--keep-files]',
    summary: 'forget a mirror set; the cached files no other set needs are dropped (larder gc then deletes them)',
    options: { 'keep-files': { type: 'boolean', help: 'keep every cached file (no longer pinned: the size bound may evict them)' } },
    minArgs: 1,
    maxArgs: 1,
    async run([name], values, storage, io) {
      const set = await setNamed(storage, name!);
      await storage.mirrorSets.remove(set.name);
      if (values['keep-files'] === true) return io.out(`removed mirror set ${set.name}; its files stay cached`);
      const stillNeeded = await pinnedFiles(storage.mirrorSets);
      let dropped = 0;
      let bytes = 0;
      for (const f of set.files) {
        if (stillNeeded.has(mirrorFileKey(f.project, f.filename, f.variant))) continue;
        const id = { project: f.project, filename: f.filename, variant: f.variant };
        const record = await storage.cachedFiles.get(id);
        if (!record) continue;
        await storage.cachedFiles.delete(id);
        dropped += 1;
        bytes += record.size;
      }
      io.out(`removed mirror set ${set.name}; dropped ${dropped} cached files (${formatBytes(bytes)}) no other set needs; larder gc deletes their bytes`);
    },
  },
};
