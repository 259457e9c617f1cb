/**
 * `larder import`: adds what an export archive holds to this data directory (also while the server runs).
 *
 * Pass 1 streams through the archive once: blobs this store lacks are staged under tmp/import-*, records
 * are staged as files, and every entry is hashed. Since the manifest comes last, nothing is decided before
 * the whole archive is read: then every entry is compared with the manifest (missing, extra, size, sha256),
 * blob entries with their names, and every record is parsed and its blob references checked. Any
 * disagreement refuses the whole import with one line naming the entry, and nothing is kept.
 *
 * Pass 2 commits the needed blobs (blob before record), then applies all records in ONE LMDB transaction:
 * new projects, releases and files are added, each added file with a new local serial and changelog entry;
 * a file whose name exists here with other bytes is a conflict (reported; the local file is kept); names
 * removed here stay removed; cache entries are added when absent or newer. Running it again adds nothing.
 */
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, statSync, type WriteStream } from 'node:fs';
import { mkdir, rm, utimes } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as tar from 'tar-stream';
import type { Database } from 'lmdb';
import type { BlobStore } from '../store/blob-store.js';
import type { MetaStore, StoreKey } from '../store/meta-store.js';
import type { FileRecord, ProjectRecord, TokenRecord, UserRecord } from '../store/records.js';
import { classifyEntry, decodeRecord, HEADER_ENTRY, MANIFEST_ENTRY, shortName, type DbName, type ExportHeader, type ManifestEntry } from './archive-format.js';
import { readLinesSync } from './files.js';
import { checkHeader, ImportRefused, isSha, verifyManifest, verifyRecords, type Staged } from './import-verify.js';
import type { Progress } from './progress.js';

export { ImportRefused } from './import-verify.js';

export interface ImportParams {
  meta: MetaStore;
  blobs: BlobStore;
  file: string;
  /** Verify and report what would be added, change nothing. */
  dryRun?: boolean;
  progress?: Progress;
  /** One line per conflict or otherwise skipped file. */
  report?: (line: string) => void;
}

export interface ImportSummary {
  header: ExportHeader;
  entries: number;
  archiveBytes: number;
  projectsAdded: number;
  releasesAdded: number;
  filesAdded: number;
  filesIdentical: number;
  conflicts: number;
  /** Files whose names were removed here (names stay reserved), not added. */
  filesReserved: number;
  /** Records not added because a blob they need vanished from this store meanwhile. */
  missingBlob: number;
  reservationsAdded: number;
  allowedNamesAdded: number;
  usersAdded: number;
  tokensAdded: number;
  cacheDocsAdded: number;
  cacheFilesAdded: number;
  blobsWritten: number;
  blobBytesWritten: number;
  /** Every record added (0 on a re-run). */
  newRecords: number;
}

const MAX_HEADER = 1 << 20;
const MAX_MANIFEST = 1 << 30;

/** Streams an entry into `path` (or nowhere), hashing it. */
async function drainEntry(entry: AsyncIterable<unknown>, path: string | null): Promise<{ size: number; sha256: string }> {
  const hash: Hash = createHash('sha256');
  let out: WriteStream | null = null;
  let size = 0;
  let outError: Error | null = null;
  if (path) {
    out = createWriteStream(path, { flags: 'wx' });
    out.on('error', (err) => (outError = err));
  }
  try {
    for await (const chunk of entry as AsyncIterable<Buffer>) {
      if (outError) throw outError;
      hash.update(chunk);
      size += chunk.length;
      if (out && !out.write(chunk)) {
        await new Promise<void>((resolve, reject) => {
          out!.once('drain', resolve);
          out!.once('error', reject);
        });
      }
    }
  } finally {
    if (out) {
      await new Promise<void>((resolve) => {
        out!.once('close', resolve);
        out!.end();
      });
    }
  }
  if (outError) throw outError;
  return { size, sha256: hash.digest('hex') };
}

async function readSmallEntry(entry: AsyncIterable<unknown>, name: string, limit: number): Promise<{ text: string; size: number; sha256: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of entry as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ImportRefused(`${name} is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  const bytes = Buffer.concat(chunks);
  return { text: bytes.toString('utf8'), size, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Pass 1: reads the whole archive into the staging directory, hashing every entry. */
async function stage(file: string, blobs: BlobStore, stagingDir: string, progress: Progress | undefined): Promise<Staged> {
  const extract = tar.extract();
  const source = createReadStream(file, { highWaterMark: 1 << 20 });
  let streamError: Error | null = null;
  extract.on('error', (err: Error) => (streamError ??= err));
  source.on('error', (err) => {
    streamError ??= err;
    extract.destroy(err);
  });
  // Progress counts the archive's bytes as they are read (tar headers and padding included).
  source.on('data', (chunk) => progress?.add(0, chunk.length));
  source.pipe(extract as unknown as NodeJS.WritableStream);

  const found: ManifestEntry[] = [];
  const names = new Set<string>();
  const records = new Map<DbName, string>();
  const stagedBlobs = new Map<string, string | null>();
  let header: ExportHeader | null = null;
  let manifestText: string | null = null;
  /** The entry being read, or the last one read completely (for messages about damage). */
  let current: string | null = null;
  let inside = false;
  try {
    for await (const entry of extract) {
      const name = entry.header.name;
      current = name;
      inside = true;
      if (manifestText !== null) throw new ImportRefused(`${shortName(name)} follows ${MANIFEST_ENTRY}, which must be the last entry`);
      if (entry.header.type !== 'file') throw new ImportRefused(`${shortName(name)} is not a regular file entry`);
      if (names.has(name)) throw new ImportRefused(`${shortName(name)} appears twice in the archive`);
      names.add(name);
      const kind = classifyEntry(name);
      if (!kind) throw new ImportRefused(found.length === 0 && !header ? `not a larder export (its first entry is ${name})` : `unexpected entry ${name}`);
      if (!header && kind.kind !== 'header') throw new ImportRefused(`not a larder export (its first entry is ${shortName(name)}, not ${HEADER_ENTRY})`);
      switch (kind.kind) {
        case 'header': {
          const read = await readSmallEntry(entry, name, MAX_HEADER);
          header = checkHeader(read.text);
          progress?.setTotals({ files: header.counts.blobs });
          found.push({ name, size: read.size, sha256: read.sha256 });
          break;
        }
        case 'manifest': {
          const read = await readSmallEntry(entry, name, MAX_MANIFEST);
          manifestText = read.text;
          break;
        }
        case 'records': {
          const path = join(stagingDir, `records-${kind.db}.jsonl`);
          const got = await drainEntry(entry, path);
          records.set(kind.db, path);
          found.push({ name, ...got });
          break;
        }
        case 'blob': {
          const local = await blobs.has(kind.sha256);
          const path = local ? null : join(stagingDir, `blob-${kind.sha256}`);
          const got = await drainEntry(entry, path);
          stagedBlobs.set(kind.sha256, path);
          found.push({ name, ...got });
          progress?.add(1, 0);
          break;
        }
      }
      inside = false;
    }
  } catch (err) {
    source.destroy();
    extract.destroy();
    if (err instanceof ImportRefused) throw err;
    const where = current ? ` (${inside ? 'in' : 'after'} entry ${shortName(current)})` : '';
    throw new ImportRefused(`the archive is damaged or truncated${where}: ${(err as Error).message}`);
  }
  if (streamError) throw new ImportRefused(`the archive could not be read: ${(streamError as Error).message}`);
  if (!header) throw new ImportRefused(`the archive is empty or not a tar file (no ${HEADER_ENTRY})`);
  if (manifestText === null) throw new ImportRefused(`${MANIFEST_ENTRY} is missing (the archive is truncated or incomplete)`);
  return { header, found, manifestText, records, blobs: stagedBlobs };
}

type Counts = Omit<ImportSummary, 'header' | 'entries' | 'archiveBytes' | 'blobsWritten' | 'blobBytesWritten' | 'newRecords'>;

const zeroCounts = (): Counts => ({
  projectsAdded: 0,
  releasesAdded: 0,
  filesAdded: 0,
  filesIdentical: 0,
  conflicts: 0,
  filesReserved: 0,
  missingBlob: 0,
  reservationsAdded: 0,
  allowedNamesAdded: 0,
  usersAdded: 0,
  tokensAdded: 0,
  cacheDocsAdded: 0,
  cacheFilesAdded: 0,
});

/**
 * Decides (and with `write`, makes) every change. Without `write` it only reads and lists the blobs the
 * changes need; with `write` it must run inside one LMDB transaction, and checks each blob on disk again
 * right before writing a record that needs it.
 */
function applyRecords(
  meta: MetaStore,
  blobs: BlobStore,
  staged: Staged,
  write: boolean,
  report: (line: string) => void,
): { counts: Counts; neededBlobs: Set<string> } {
  const counts = zeroCounts();
  const neededBlobs = new Set<string>();
  const db = <V>(name: DbName) => meta.openDB<V>(name) as Database<V, StoreKey>;
  const projects = db<ProjectRecord>('projects');
  const releases = db<unknown>('releases');
  const files = db<FileRecord>('files');
  const deleted = db<unknown>('deleted-files');
  const allowed = db<unknown>('allowed-names');
  const users = db<UserRecord>('users');
  const tokens = db<TokenRecord>('tokens');
  const docs = db<{ fetchedAt: number }>('upstream-docs');
  const cachedFiles = db<{ sha256: string; fetchedAt: number }>('upstream-files');
  const created = new Set<string>();
  const addedUsers = new Set<string>();

  /** Are the blobs there (write), or note them as needed (plan)? */
  const blobsReady = (shas: string[]): boolean => {
    if (!write) {
      for (const s of shas) neededBlobs.add(s);
      return true;
    }
    return shas.every((s) => existsSync(blobs.pathFor(s)));
  };

  const each = function* (name: DbName): Generator<{ key: StoreKey; value: unknown }> {
    const path = staged.records.get(name);
    if (!path) return;
    for (const line of readLinesSync(path)) {
      const { key, value } = decodeRecord(line);
      yield { key: key as StoreKey, value };
    }
  };

  for (const { key, value } of each('projects')) {
    const name = key as string;
    if (projects.get(name)) continue;
    counts.projectsAdded++;
    created.add(name);
    if (write) {
      projects.putSync(name, { ...(value as ProjectRecord), serial: 0 });
      meta.recordChange(name, 'create project', null);
    }
  }
  for (const { key, value } of each('releases')) {
    if (releases.get(key) !== undefined) continue;
    counts.releasesAdded++;
    if (write) releases.putSync(key, value);
  }
  for (const { key, value } of each('deleted-files')) {
    if (deleted.get(key) !== undefined || files.get(key)) continue;
    counts.reservationsAdded++;
    if (write) deleted.putSync(key, value);
  }
  for (const { key, value } of each('files')) {
    const file = value as FileRecord;
    const [project, filename] = key as [string, string];
    const existing = files.get(key);
    if (existing) {
      if (existing.sha256 === file.sha256) {
        counts.filesIdentical++;
      } else {
        counts.conflicts++;
        report(`conflict: ${project}/${filename} exists here with other bytes; kept the local file`);
      }
      continue;
    }
    if (deleted.get(key) !== undefined) {
      counts.filesReserved++;
      report(`skipped: ${project}/${filename} was removed here and its name stays reserved`);
      continue;
    }
    if (!projects.get(project) && !created.has(project)) continue; // cannot happen: verifyRecords saw the project
    const shas = [file.sha256, file.metadataSha256, file.signatureSha256].filter((s): s is string => isSha(s));
    if (!blobsReady(shas)) {
      counts.missingBlob++;
      report(`skipped: ${project}/${filename}: its blob vanished from this store during the import`);
      continue;
    }
    counts.filesAdded++;
    if (write) {
      files.putSync(key, file);
      meta.recordChange(project, 'add file', null, file.version, filename);
    }
  }
  for (const { key, value } of each('allowed-names')) {
    if (allowed.get(key) !== undefined) continue;
    counts.allowedNamesAdded++;
    if (write) allowed.putSync(key, value);
  }
  for (const { key, value } of each('users')) {
    const local = users.get(key as string);
    if (local) {
      if (local.passwordHash !== (value as UserRecord).passwordHash || local.admin !== (value as UserRecord).admin) {
        report(`skipped: user ${String(key)} exists here; kept the local user`);
      }
      continue;
    }
    counts.usersAdded++;
    addedUsers.add(key as string);
    if (write) users.putSync(key as string, value as UserRecord);
  }
  for (const { key, value } of each('tokens')) {
    if (tokens.get(key as string)) continue;
    const token = value as TokenRecord;
    if (!users.get(token.user) && !addedUsers.has(token.user)) continue;
    counts.tokensAdded++;
    if (write) tokens.putSync(key as string, token);
  }
  for (const { key, value } of each('upstream-docs')) {
    const local = docs.get(key);
    if (local && local.fetchedAt >= (value as { fetchedAt: number }).fetchedAt) continue;
    counts.cacheDocsAdded++;
    if (write) docs.putSync(key, value as { fetchedAt: number });
  }
  for (const { key, value } of each('upstream-files')) {
    const record = value as { sha256: string; fetchedAt: number };
    const local = cachedFiles.get(key);
    if (local && local.fetchedAt >= record.fetchedAt && existsSync(blobs.pathFor(local.sha256))) continue;
    if (!blobsReady([record.sha256])) {
      counts.missingBlob++;
      continue;
    }
    counts.cacheFilesAdded++;
    if (write) cachedFiles.putSync(key, record);
  }
  return { counts, neededBlobs };
}

export async function importArchive(params: ImportParams): Promise<ImportSummary> {
  const { meta, blobs, progress } = params;
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

    // Pass 2: plan, then blobs before records, then one transaction.
    const plan = applyRecords(meta, blobs, staged, false, params.dryRun ? report : () => {});
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
          await utimes(blobs.pathFor(sha), now, now).catch(() => {});
        }
      }
      counts = meta.transaction(() => applyRecords(meta, blobs, staged, true, report).counts);
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
