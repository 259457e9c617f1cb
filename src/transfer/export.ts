/**
 * `larder export`: writes one archive (see archive-format.ts) holding a consistent snapshot of the selected
 * records and every blob they reference, read through the storage interfaces. Safe while the server runs:
 * the private records are read inside one read snapshot of the index store (writers are not blocked), and
 * because a blob is always durable before its record, every record in the snapshot has its bytes in the blob
 * store; blobs are immutable, so they are read after the snapshot.
 * The archive is written to FILE.tmp and renamed to FILE only when complete. Memory does not grow with the
 * size of the blobs: records go through temporary files, blobs are streamed.
 */
import { createReadStream, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { checkProjectName } from '../model/client-names.js';
import type { IndexSnapshot } from '../store/index-store.js';
import type { Storage } from '../store/storage.js';
import { LARDER_VERSION } from '../base/version.js';
import {
  blobEntry,
  CACHE_DBS,
  encodeRecord,
  FORMAT,
  FORMAT_VERSION,
  HEADER_ENTRY,
  MANIFEST_ENTRY,
  PRIVATE_DBS,
  recordsEntry,
  SHA256_HEX,
  USER_DBS,
  type DbName,
  type ExportHeader,
  type ExportOptions,
  type Manifest,
} from './archive-format.js';
import {
  allowedLine,
  cachedFileLine,
  deletedLine,
  documentLine,
  fileLine,
  projectLine,
  projectOf,
  releaseLine,
  tokenLine,
  userLine,
  type ArchiveLine,
} from './archive-records.js';
import { ArchiveWriter, ExportError } from './archive-writer.js';
import { SyncLineWriter, syncFileAndDir } from './files.js';
import type { Progress } from './progress.js';

export { ExportError } from './archive-writer.js';

export interface ExportParams {
  storage: Pick<Storage, 'index' | 'documents' | 'cachedFiles' | 'blobs'>;
  /** The archive to write. */
  file: string;
  options: ExportOptions;
  progress?: Progress;
  /** Warnings (records left out, unknown projects). */
  warn?: (line: string) => void;
  /** Keeps only the cache records (upstream-docs, upstream-files) it accepts (`export --mirror`). */
  cacheFilter?: (line: ArchiveLine) => boolean;
}

export interface ExportResult {
  path: string;
  header: ExportHeader;
  archiveBytes: number;
}

interface Snapshot {
  records: { db: DbName; path: string; size: number; sha256: string; lines: number }[];
  /** sha256 → size of every referenced blob, in first-reference order. */
  blobs: Map<string, number>;
}

/** The records of one database, read from the storage interfaces. */
async function* linesOf(db: DbName, storage: ExportParams['storage'], view: IndexSnapshot): AsyncIterable<ArchiveLine> {
  switch (db) {
    case 'projects':
      for await (const r of view.projects()) yield projectLine(r);
      break;
    case 'releases':
      for await (const r of view.releases()) yield releaseLine(r);
      break;
    case 'files':
      for await (const r of view.files()) yield fileLine(r);
      break;
    case 'deleted-files':
      for await (const r of view.deletedFilenames()) yield deletedLine(r);
      break;
    case 'allowed-names':
      for await (const r of view.allowedNames()) yield allowedLine(r);
      break;
    case 'users':
      for await (const r of view.users()) yield userLine(r);
      break;
    case 'tokens':
      for await (const r of view.tokens()) yield tokenLine(r);
      break;
    case 'upstream-docs':
      for (const { id, entry } of storage.documents.entries()) yield documentLine(id, entry);
      break;
    case 'upstream-files':
      for await (const { id, record } of storage.cachedFiles.entries()) yield cachedFileLine(id, record);
      break;
  }
}

/** The blobs a record needs. */
function needsOf(line: ArchiveLine): string[] {
  if (line.db === 'upstream-files') return [(line.value as { sha256: string }).sha256];
  if (line.db !== 'files') return [];
  const file = line.value as { sha256: string; metadataSha256: string | null; signatureSha256: string | null };
  return [file.sha256, file.metadataSha256, file.signatureSha256].filter((s): s is string => s !== null && s !== undefined);
}

function selectedDbs(options: ExportOptions): DbName[] {
  return [...(options.private ? PRIVATE_DBS : []), ...(options.private && options.includeUsers ? USER_DBS : []), ...(options.cache ? CACHE_DBS : [])];
}

/**
 * Reads every selected private record inside one snapshot (the cache's records as they are meanwhile),
 * into one temporary JSON-lines file per database; then the sizes of the blobs they reference.
 */
async function takeSnapshot(
  storage: ExportParams['storage'],
  options: ExportOptions,
  workDir: string,
  warn: (line: string) => void,
  cacheFilter: ExportParams['cacheFilter'],
): Promise<Snapshot> {
  const { blobs } = storage;
  const dbs = selectedDbs(options);
  const only = options.projects ? new Set(options.projects) : null;
  const needed = new Set<string>();
  const records: Snapshot['records'] = [];
  const seenProjects = new Set<string>();
  let cacheFilesWithoutBlob = 0;

  await storage.index.readSnapshot(async (view) => {
    for (const db of dbs) {
      const writer = new SyncLineWriter(`${workDir}/${db}.jsonl`);
      for await (const line of linesOf(db, storage, view)) {
        const project = projectOf(line);
        if (only && project !== null && !only.has(project)) continue;
        if (cacheFilter && (db === 'upstream-docs' || db === 'upstream-files') && !cacheFilter(line)) continue;
        if (project !== null) seenProjects.add(project);
        const needs = needsOf(line);
        if (!needs.every((sha) => needed.has(sha) || (SHA256_HEX.test(sha) && blobs.hasSync(sha)))) {
          if (db === 'files') {
            warn(`export: left out ${JSON.stringify(line.key)}: a blob it references is missing from the blob store`);
          } else {
            cacheFilesWithoutBlob++;
          }
          continue;
        }
        for (const sha of needs) needed.add(sha);
        writer.line(encodeRecord(line.key, line.value));
      }
      records.push({ db, path: writer.path, ...writer.close() });
    }
  });
  if (cacheFilesWithoutBlob) warn(`export: left out ${cacheFilesWithoutBlob} cached upstream file record(s) whose blob is gone`);
  for (const p of options.projects ?? []) if (!seenProjects.has(p)) warn(`export: no records of project '${p}' here`);
  const blobSizes = new Map<string, number>();
  for (const sha of needed) {
    const size = await blobs.size(sha);
    if (size === null) throw vanished(sha);
    blobSizes.set(sha, size);
  }
  return { records, blobs: blobSizes };
}

const vanished = (sha: string) =>
  new ExportError(`blob ${sha} vanished during the export (removed by garbage collection or a cache purge?); run the export again`);

export async function exportArchive(params: ExportParams): Promise<ExportResult> {
  const { storage, options, progress } = params;
  options.projects?.forEach(checkProjectName);
  const warn = params.warn ?? (() => {});
  const path = resolve(params.file);
  const tmp = `${path}.tmp`;
  const workDir = `${path}.tmp-records`;
  if (!statSync(dirname(path), { throwIfNoEntry: false })?.isDirectory()) throw new ExportError(`cannot write ${path}: ${dirname(path)} is not a directory`);
  await rm(tmp, { force: true });
  await rm(workDir, { recursive: true, force: true });
  await mkdir(workDir);
  let writer: ArchiveWriter | null = null;
  try {
    const snapshot = await takeSnapshot(storage, options, workDir, warn, params.cacheFilter);
    let blobBytes = 0;
    for (const size of snapshot.blobs.values()) blobBytes += size;
    const recordBytes = snapshot.records.reduce((n, r) => n + r.size, 0);
    const header: ExportHeader = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      createdAt: new Date().toISOString(),
      larderVersion: LARDER_VERSION,
      options,
      counts: {
        records: Object.fromEntries(snapshot.records.map((r) => [r.db, r.lines])),
        blobs: snapshot.blobs.size,
        blobBytes,
      },
    };
    progress?.setTotals({ files: snapshot.blobs.size, bytes: blobBytes + recordBytes });

    writer = new ArchiveWriter(tmp);
    await writer.addBuffer(HEADER_ENTRY, Buffer.from(`${JSON.stringify(header, null, 2)}\n`));
    for (const r of snapshot.records) {
      const name = recordsEntry(r.db);
      const sha256 = await writer.addStream(name, createReadStream(r.path, { highWaterMark: 1 << 20 }), r.size, (n) => progress?.add(0, n));
      if (sha256 !== r.sha256) throw new ExportError(`${name} changed while it was written to the archive`);
    }
    for (const [sha, size] of snapshot.blobs) {
      const name = blobEntry(sha);
      let actual: string;
      try {
        actual = await writer.addStream(name, await storage.blobs.read(sha), size, (n) => progress?.add(0, n));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw vanished(sha);
        throw err;
      }
      if (actual !== sha) throw new ExportError(`blob ${sha} is damaged on disk (its content has sha256 ${actual}); export stopped`);
      progress?.add(1, 0);
    }
    const manifest: Manifest = { format: FORMAT, formatVersion: FORMAT_VERSION, entries: writer.entries };
    await writer.addBuffer(MANIFEST_ENTRY, Buffer.from(`${JSON.stringify(manifest)}\n`));
    await writer.finish();
    writer = null;
    await syncFileAndDir(tmp);
    await rename(tmp, path);
    await syncFileAndDir(path);
    const archiveBytes = statSync(path).size;
    return { path, header, archiveBytes };
  } catch (err) {
    writer?.destroy();
    await rm(tmp, { force: true });
    throw err;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
