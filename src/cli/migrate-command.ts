/** `larder migrate`: moves this data directory's records and blobs into shared backends (docs/migrate.md). */
import { parseDuration } from '../config/schema.js';
import { migrate } from '../transfer/migrate.js';
import { Progress } from '../transfer/progress.js';
import { UsageError } from './args.js';
import type { Command } from './command.js';
import { PROGRESS_OPTION } from './transfer-commands.js';
import { openMigrationTargets, type OpenMigrationTargets } from './migration-targets.js';

const DESCRIPTION = [
  'The source is the data directory (--data / LARDER_DATA), which must not itself be configured with',
  'LARDER_DATABASE_URL or LARDER_BLOB_STORE. Stop the server first, or run migrate again after it stopped.',
  'Either of --to and --blobs may be left out: then that part stays in the data directory. The blob store',
  'uses LARDER_S3_ENDPOINT, LARDER_S3_REGION and the AWS_* credentials; --blobs file:/path/to/other/data',
  'names another local data directory instead.',
  '',
  'Blobs are copied first (each hashed on the way; one whose bytes do not match its name is refused),',
  'then the private records in one transaction, then the policy exemptions and collisions, then every',
  'record and blob is checked in the target. What the target already has is skipped, so an interrupted',
  'migration is run again to finish it. Exit 0 only when nothing was refused or conflicted and the check',
  'passed. Upstream page caches are per node and are not migrated.',
].join('\n');

export function migrateCommand(openTargets: OpenMigrationTargets = openMigrationTargets): Command {
  return {
    usage: 'larder migrate [--to postgres://…] [--blobs s3://bucket/prefix] [--verify] [--progress-interval D]',
    summary: 'move this data directory into a shared database and blob store (resumable, checked)',
    description: DESCRIPTION,
    options: {
      to: { type: 'string', value: 'URL', help: 'the database: postgres://user:password@host:port/database' },
      blobs: { type: 'string', value: 'URL', help: 'the blob store: s3://bucket/prefix' },
      verify: { type: 'boolean', help: 'at the end, also read every blob back from the target and check its sha256' },
      ...PROGRESS_OPTION,
    },
    settings: ['data', 'databasePool', 's3Endpoint', 's3Region', 's3Deadline'],
    minArgs: 0,
    maxArgs: 0,
    localStorage: true,
    async run(_args, values, storage, io, config) {
      if (config.databaseUrl !== null || config.blobStore !== null) {
        throw new UsageError(
          `the data directory to migrate must be a local one, but ${config.databaseUrl !== null ? 'LARDER_DATABASE_URL' : 'LARDER_BLOB_STORE'} is set; ` +
            'unset LARDER_DATABASE_URL and LARDER_BLOB_STORE and name the targets with --to and --blobs',
        );
      }
      const databaseUrl = (values.to as string | undefined) ?? null;
      const blobStore = (values.blobs as string | undefined) ?? null;
      if (databaseUrl === null && blobStore === null) throw new UsageError('nothing to migrate to: give --to postgres://… and/or --blobs s3://…');
      const interval = values['progress-interval'];
      const intervalMs = interval === undefined ? undefined : parseDuration(interval, '--progress-interval');
      const targets = await openTargets({
        databaseUrl,
        databasePool: config.databasePool,
        blobStore,
        s3Endpoint: config.s3Endpoint,
        s3Region: config.s3Region,
        s3Deadline: config.s3Deadline,
        data: config.data,
      });
      let result: Awaited<ReturnType<typeof migrate>>;
      try {
        result = await migrate(
          storage,
          {
            index: targets.index ?? storage.index,
            policy: targets.policy ?? storage.policy,
            blobs: targets.blobs ?? storage.blobs,
            ...(targets.cachedFiles ? { cachedFiles: targets.cachedFiles } : {}),
            ...(targets.mirrorSets ? { mirrorSets: targets.mirrorSets } : {}),
          },
          {
            report: io.out,
            verify: values.verify === true,
            progress: (label) => new Progress({ label, stream: process.stderr, intervalMs, rate: true }),
          },
        );
      } finally {
        await targets.close();
      }
      if (!result.ok) throw new Error('migration incomplete: see the lines above; run larder migrate again once they are resolved');
    },
  };
}

export const MIGRATE_COMMANDS: Record<string, Command> = { migrate: migrateCommand() };
