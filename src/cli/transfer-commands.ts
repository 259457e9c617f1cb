/** `larder export` and `larder import`: moving projects and the upstream cache between data directories (air gaps). */
import { parseDuration } from '../config/schema.js';
import { normalizeName } from '../model/names.js';
import { formatBytes } from '../base/units.js';
import type { DbName } from '../transfer/archive-format.js';
import type { ArchiveLine } from '../transfer/archive-records.js';
import { mirrorFileKey, pinnedFiles } from '../store/mirror-set-store.js';
import type { Storage } from '../store/storage.js';
import { exportArchive } from '../transfer/export.js';
import { importArchive } from '../transfer/import.js';
import { Progress, type ProgressStream } from '../transfer/progress.js';
import { UsageError } from './args.js';
import type { Command } from './command.js';
import type { OptionSpecs } from './options.js';

/** The cache records mirror set `name` needs: its projects' pages and documents, and its files. */
async function mirrorSetFilter(storage: Storage, name: string): Promise<(line: ArchiveLine) => boolean> {
  const set = await storage.mirrorSets.get(name);
  if (!set) throw new UsageError(`no mirror set named '${name}' (see larder mirror list)`);
  const projects = new Set(set.files.map((f) => f.project));
  const files = await pinnedFiles({ list: async () => [set] });
  return (line) => {
    const key = line.key as string[];
    return line.db === 'upstream-files' ? files.has(mirrorFileKey(key[0]!, key[1]!, key[2]!)) : projects.has(key[1]!);
  };
}

const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

function progressFor(label: string, values: Record<string, unknown>, stream: ProgressStream = process.stderr): Progress {
  const interval = values['progress-interval'];
  return new Progress({
    label,
    stream,
    intervalMs: interval === undefined ? undefined : parseDuration(interval, '--progress-interval'),
  });
}

const PROGRESS_HELP =
  'Progress goes to standard error: a bar on a terminal, otherwise a line such as\n' +
  '`export: 120/450 files, 1.2 GB of 3.4 GB` at most every --progress-interval.';

export const PROGRESS_OPTION: OptionSpecs = {
  'progress-interval': { type: 'string', value: 'DURATION', help: 'least time between plain progress lines', default: '2s' },
};

export const TRANSFER_COMMANDS: Record<string, Command> = {
  export: {
    usage: 'larder export FILE [--private-only | --cache-only] [--project P]... [--mirror NAME] [--include-users] [--progress-interval D]',
    summary: 'write private projects and the upstream cache to one archive (air-gap transfer)',
    description: [
      'FILE is an uncompressed tar holding a consistent snapshot (taken in one read transaction, also while',
      'the server runs): a header, the stored records as JSON lines, every referenced blob once, and last a',
      'manifest with the size and sha256 of every entry. It is written to FILE.tmp and renamed when complete.',
      '',
      PROGRESS_HELP,
    ].join('\n'),
    options: {
      'private-only': { type: 'boolean', help: 'only private projects (projects, releases, files, removed names, allowed names)' },
      'cache-only': { type: 'boolean', help: 'only the upstream cache (cached pages, JSON documents and files)' },
      project: { type: 'string', multiple: true, value: 'P', help: 'only these projects (repeatable; names are normalized), in either part' },
      mirror: { type: 'string', value: 'NAME', help: 'of the upstream cache, only what mirror set NAME needs (its pages and files)' },
      'include-users': {
        type: 'boolean',
        help: 'also users (with password hashes) and API tokens (hashes only); private part only; import takes them only with --include-users',
      },
      ...PROGRESS_OPTION,
    },
    minArgs: 1,
    maxArgs: 1,
    async run([file], values, storage, io) {
      const privateOnly = values['private-only'] === true;
      const cacheOnly = values['cache-only'] === true;
      if (privateOnly && cacheOnly) throw new UsageError('--private-only and --cache-only exclude each other');
      const includeUsers = values['include-users'] === true;
      if (includeUsers && cacheOnly) throw new UsageError('--include-users belongs to the private part; drop --cache-only');
      const projects = (values.project as string[] | undefined)?.map(normalizeName) ?? null;
      const mirror = values.mirror === undefined ? undefined : await mirrorSetFilter(storage, values.mirror as string);
      if (mirror && privateOnly) throw new UsageError('--mirror selects cached files; drop --private-only');
      const progress = progressFor('export', values);
      const warn = (line: string) => process.stderr.write(`${line}\n`);
      try {
        const result = await exportArchive({
          storage,
          file: file!,
          options: { private: !cacheOnly, cache: !privateOnly, projects: projects ? [...new Set(projects)] : null, includeUsers },
          progress,
          warn,
          cacheFilter: mirror,
        });
        progress.done();
        const r = result.header.counts.records;
        const n = (db: DbName) => r[db] ?? 0;
        const parts = [
          ...(result.header.options.private ? [plural(n('projects'), 'project'), plural(n('releases'), 'release'), plural(n('files'), 'file')] : []),
          ...(includeUsers ? [plural(n('users'), 'user'), plural(n('tokens'), 'token')] : []),
          ...(result.header.options.cache
            ? [plural(n('upstream-docs'), 'cached page or document', 'cached pages and documents'), plural(n('upstream-files'), 'cached file')]
            : []),
        ];
        io.out(`exported ${parts.join(', ')}; ${plural(result.header.counts.blobs, 'blob')} (${formatBytes(result.header.counts.blobBytes)})`);
        io.out(`wrote ${result.path} (${formatBytes(result.archiveBytes)})`);
      } catch (err) {
        progress.abort();
        throw err;
      }
    },
  },
  import: {
    usage: 'larder import FILE [--dry-run] [--include-users [--grant-admins]] [--progress-interval D]',
    summary: 'add what an export archive holds here (verified first; safe to re-run)',
    description: [
      "Every entry is checked against the archive's manifest (size and sha256) before anything is kept; a",
      'damaged, truncated or edited archive is refused with one line naming the bad entry, and nothing is',
      'imported. Then new projects, releases and files are added (each added file gets a new serial here),',
      'and cached upstream pages and files when absent or newer. Works while the server runs.',
      '',
      'A private file whose name exists here with other bytes is never overwritten: each such conflict is',
      'reported on its own line and the local file is kept. Conflicts are not failures: the exit code is 0',
      'when the archive was imported, 1 when it was refused. Importing the same archive again adds nothing.',
      '',
      'Users and API tokens in the archive (export --include-users) are not imported unless --include-users',
      'is given here too; one line says how many were left out. With it, every user of the archive is listed',
      'before anything is written, with what happens to it: a user new here is imported (an administrator in',
      'the archive as an ordinary user, unless --grant-admins); a user whose name is another account here',
      '(another password hash) is not merged: the local user is kept and none of its tokens from the archive',
      'is imported. Run with --dry-run first to read the list.',
      '',
      PROGRESS_HELP,
    ].join('\n'),
    options: {
      'dry-run': { type: 'boolean', help: 'verify the archive and report what would be added; change nothing' },
      'include-users': { type: 'boolean', help: "import the archive's users and API tokens (never merged into another account of the same name)" },
      'grant-admins': { type: 'boolean', help: "the archive's administrators are administrators here too (needs --include-users)" },
      ...PROGRESS_OPTION,
    },
    minArgs: 1,
    maxArgs: 1,
    async run([file], values, storage, io) {
      const dryRun = values['dry-run'] === true;
      const trust = { users: values['include-users'] === true, admins: values['grant-admins'] === true };
      if (trust.admins && !trust.users) throw new UsageError('--grant-admins concerns imported users; add --include-users');
      const progress = progressFor('import', values);
      let summary: Awaited<ReturnType<typeof importArchive>>;
      try {
        summary = await importArchive({ storage, file: file!, dryRun, trust, progress, report: io.out });
      } catch (err) {
        progress.abort();
        throw err;
      }
      const s = summary;
      const verb = dryRun ? 'would add' : 'added';
      io.out(`verified ${plural(s.entries, 'entry', 'entries')} (${formatBytes(s.archiveBytes)}) against the manifest`);
      io.out(
        `${verb} ${plural(s.filesAdded, 'file')}, ${plural(s.cacheDocsAdded + s.cacheFilesAdded, 'cache entry', 'cache entries')}; ` +
          `skipped ${plural(s.filesIdentical, 'identical file')}, ${plural(s.conflicts, 'conflict')}` +
          (s.filesReserved ? `, ${plural(s.filesReserved, 'file')} removed here` : '') +
          (s.missingBlob ? `, ${plural(s.missingBlob, 'record')} whose blob vanished` : ''),
      );
      io.out(
        `${verb} ${plural(s.projectsAdded, 'project')}, ${plural(s.releasesAdded, 'release')}, ` +
          `${plural(s.cacheDocsAdded, 'cached page or document', 'cached pages and documents')}, ${plural(s.cacheFilesAdded, 'cached file')}` +
          (s.reservationsAdded ? `, ${plural(s.reservationsAdded, 'removed-name reservation')}` : '') +
          (s.allowedNamesAdded ? `, ${plural(s.allowedNamesAdded, 'allowed name')}` : '') +
          (s.usersAdded || s.tokensAdded ? `, ${plural(s.usersAdded, 'user')}, ${plural(s.tokensAdded, 'token')}` : '') +
          `; ${plural(s.blobsWritten, 'new blob')} (${formatBytes(s.blobBytesWritten)})`,
      );
      io.out(
        `${dryRun ? 'dry run: ' : ''}${s.newRecords} new record${s.newRecords === 1 ? '' : 's'}${s.conflicts ? ` (${plural(s.conflicts, 'conflict')} reported above; not an error)` : ''}` +
          (s.usersNotMerged ? `; ${plural(s.usersNotMerged, 'user')} not merged into another account of the same name (listed above)` : ''),
      );
    },
  },
};
