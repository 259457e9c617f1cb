/**
 * `larder import`: adds what an export archive holds to this data directory (also while the server runs).
 *
 * Pass 1 streams through the archive once: blobs this store lacks are staged under tmp/import-*, records
 * are staged as files, and every entry is hashed. Since the manifest comes last, nothing is decided before
 * the whole archive is read: then every entry is compared with the manifest (missing, extra, size, sha256),
 * blob entries with their names, and every record is parsed and its blob references checked. Any
 * disagreement refuses the whole import with one line naming the entry, and nothing is kept.
 *
 * Pass 2 (import-apply.ts) first lists what happens to the archive's users (import-users.ts), then plans,
 * commits the needed blobs (blob before record), then applies the private records in ONE transaction of
 * the index store, then the cache entries; all through the storage interfaces, so it works for any backend.
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdir, rm, utimes } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { TokenRecord, UserRecord } from '../store/records.js';
import type { Storage } from '../store/storage.js';
import type { DbName, ExportHeader } from './archive-format.js';
import { applyImport, planImport, type ImportCounts } from './import-apply.js';
import { stage } from './import-stage.js';
import { describeUsers, NO_USERS, type UserTrust } from './import-users.js';
import { ImportRefused, stagedRecords, verifyManifest, verifyRecords, type Staged } from './import-verify.js';
import type { Progress } from './progress.js';

export { ImportRefused } from './import-verify.js';

export interface ImportParams {
  storage: Pick<Storage, 'index' | 'documents' | 'cachedFiles' | 'blobs'>;
  file: string;
  /** Verify and report what would be added, change nothing. */
  dryRun?: boolean;
  /** Whether the archive's users and tokens are imported, and its administrators stay so (default: neither). */
  trust?: UserTrust;
  progress?: Progress;
  /** What happens to the archive's users (before anything is written), then one line per conflict or otherwise skipped file. */
  report?: (line: string) => void;
}

export interface ImportSummary extends ImportCounts {
  header: ExportHeader;
  entries: number;
  archiveBytes: number;
  blobsWritten: number;
  blobBytesWritten: number;
  /** Every record added (0 on a re-run). */
  newRecords: number;
}

function* valuesOf<T>(staged: Staged, db: DbName): Generator<T> {
  for (const record of stagedRecords(staged, db)) yield record.value as T;
}

export async function importArchive(params: ImportParams): Promise<ImportSummary> {
  const { storage, progress } = params;
  const { blobs } = storage;
  const report = params.report ?? (() => {});
  const file = resolve(params.file);
  const info = statSync(file, { throwIfNoEntry: false });
  if (!info?.isFile()) throw new ImportRefused(`${params.file} is not a file`);
  progress?.setTotals({ bytes: info.size });
  await blobs.init();
  const stagingDir = join(blobs.tmpDir, `import-${process.pid}-${randomBytes(6).toString('hex')}`);
  await mkdir(stagingDir, { recursive: true });
  try {
    // Pass 1: read and verify everything; nothing outside the staging directory is touched.
    const staged = await stage(file, blobs, stagingDir, progress);
    verifyManifest(staged);
    verifyRecords(staged);

    // Pass 2: say what happens to the users, plan, then blobs before records, then one transaction.
    const trust = params.trust ?? NO_USERS;
    const users = [...valuesOf<UserRecord>(staged, 'users')];
    const local = new Map<string, UserRecord | undefined>();
    if (trust.users) for (const user of users) local.set(user.name, await storage.index.getUser(user.name));
    for (const line of describeUsers(users, valuesOf<TokenRecord>(staged, 'tokens'), (name) => local.get(name), trust)) report(line);
    const plan = await planImport(storage, staged, trust, params.dryRun ? report : () => {});
    let blobsWritten = 0;
    let blobBytesWritten = 0;
    let counts = plan.counts;
    if (!params.dryRun) {
      const now = new Date();
      for (const sha of plan.neededBlobs) {
        const stagedPath = staged.blobs.get(sha);
        if (stagedPath) {
          const size = statSync(stagedPath).size;
          await utimes(stagedPath, now, now); // young, so garbage collection leaves it until its record exists
          await blobs.commit(stagedPath, sha);
          blobsWritten++;
          blobBytesWritten += size;
        } else {
          const path = blobs.localPath(sha);
          if (path) await utimes(path, now, now).catch(() => {});
        }
      }
      counts = await applyImport(storage, staged, trust, report);
    } else {
      for (const sha of plan.neededBlobs) {
        const stagedPath = staged.blobs.get(sha);
        if (stagedPath) {
          blobsWritten++;
          blobBytesWritten += statSync(stagedPath).size;
        }
      }
    }
    const newRecords =
      counts.projectsAdded +
      counts.releasesAdded +
      counts.filesAdded +
      counts.reservationsAdded +
      counts.allowedNamesAdded +
      counts.usersAdded +
      counts.tokensAdded +
      counts.cacheDocsAdded +
      counts.cacheFilesAdded;
    progress?.done(params.dryRun ? 'verified' : 'imported');
    return {
      header: staged.header,
      entries: staged.found.length + 1,
      archiveBytes: info.size,
      ...counts,
      blobsWritten,
      blobBytesWritten,
      newRecords,
    };
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
}
