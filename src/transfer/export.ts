/**
 * `larder export`: writes one archive (see archive-format.ts) holding a consistent snapshot of the selected
 * records and every blob they reference. Safe while the server runs: all records are read inside one LMDB
 * read transaction (writers are not blocked), and because a blob is always durable before its record, every
 * record in the snapshot has its bytes on disk; blobs are immutable, so they are read after the snapshot.
 * The archive is written to FILE.tmp and renamed to FILE only when complete. Memory does not grow with the
 * size of the blobs: records go through temporary files, blobs are streamed.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, statSync, type WriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import * as tar from 'tar-stream';
import { checkProjectName } from '../index/client-names.js';
import type { BlobStore } from '../store/blob-store.js';
import type { MetaStore } from '../store/meta-store.js';
import type { FileRecord } from '../store/records.js';
import { LARDER_VERSION } from '../version.js';
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
  type ManifestEntry,
} from './archive-format.js';
import { SyncLineWriter, syncFileAndDir } from './files.js';
import type { Progress } from './progress.js';

export class ExportError extends Error {}

export interface ExportParams {
  meta: MetaStore;
  blobs: BlobStore;
  /** The archive to write. */
  file: string;
  options: ExportOptions;
  progress?: Progress;
  /** Warnings (records left out, unknown projects). */
  warn?: (line: string) => void;
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

/** The project a record belongs to, or null for records that belong to none (users, tokens). */
function projectOf(db: DbName, key: unknown): string | null | undefined {
  switch (db) {
    case 'projects':
    case 'allowed-names':
      return typeof key === 'string' ? key : undefined;
    case 'releases':
    case 'files':
    case 'deleted-files':
    case 'upstream-files':
      return Array.isArray(key) ? String(key[0]) : undefined;
    case 'upstream-docs':
      return Array.isArray(key) && key.length >= 2 ? String(key[1]) : undefined;
    default:
      return null;
  }
}

function selectedDbs(options: ExportOptions): DbName[] {
  return [
    ...(options.private ? PRIVATE_DBS : []),
    ...(options.private && options.includeUsers ? USER_DBS : []),
    ...(options.cache ? CACHE_DBS : []),
  ];
}

/** Reads every selected record inside one read transaction, into one temporary JSON-lines file per database. */
function takeSnapshot(meta: MetaStore, blobs: BlobStore, options: ExportOptions, workDir: string, warn: (line: string) => void): Snapshot {
  const dbs = selectedDbs(options);
  const only = options.projects ? new Set(options.projects) : null;
  // Opened before the snapshot: opening a database that does not exist yet needs a write transaction.
  const handles = new Map(dbs.map((db) => [db, meta.openDB<unknown>(db)] as const));
  const blobSizes = new Map<string, number>();
  const records: Snapshot['records'] = [];
  const seenProjects = new Set<string>();
  let cacheFilesWithoutBlob = 0;

  /** Size of a blob on disk, or null when it is missing. */
  const blobSize = (sha256: unknown): number | null => {
    if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) return null;
    const known = blobSizes.get(sha256);
    if (known !== undefined) return known;
    const info = statSync(blobs.pathFor(sha256), { throwIfNoEntry: false });
    return info ? info.size : null;
  };

  meta.readSnapshot((transaction) => {
    for (const db of dbs) {
      const writer = new SyncLineWriter(`${workDir}/${db}.jsonl`);
      for (const { key, value } of handles.get(db)!.getRange({ transaction })) {
        if (db === 'upstream-docs' && (!Array.isArray(key) || key[0] === 'root')) continue;
        const project = projectOf(db, key);
        if (project === undefined) {
          warn(`export: left out a ${db} record with an unexpected key ${JSON.stringify(key)}`);
          continue;
        }
        if (only && project !== null && !only.has(project)) continue;
        if (project !== null) seenProjects.add(project);
        let needs: string[] = [];
        if (db === 'files') {
          const file = value as FileRecord;
          needs = [file.sha256, file.metadataSha256, file.signatureSha256].filter((s): s is string => s !== null && s !== undefined);
        } else if (db === 'upstream-files') {
          needs = [(value as { sha256: string }).sha256];
        }
        const sizes = needs.map(blobSize);
        if (sizes.some((s) => s === null)) {
          if (db === 'files') {
            warn(`export: left out ${JSON.stringify(key)}: a blob it references is missing from the blob store`);
          } else {
            cacheFilesWithoutBlob++;
          }
          continue;
        }
        needs.forEach((sha, i) => blobSizes.set(sha, sizes[i]!));
        writer.line(encodeRecord(key, value));
      }
      records.push({ db, path: writer.path, ...writer.close() });
    }
  });
  if (cacheFilesWithoutBlob) warn(`export: left out ${cacheFilesWithoutBlob} cached upstream file record(s) whose blob is gone`);
  for (const p of options.projects ?? []) if (!seenProjects.has(p)) warn(`export: no records of project '${p}' here`);
  return { records, blobs: blobSizes };
}

/** A tar being streamed to a file, with the manifest of what went into it. */
class ArchiveWriter {
  private readonly pack = tar.pack();
  private readonly out: WriteStream;
  private readonly closed: Promise<void>;
  private failure: Error | null = null;
  private readonly failed: Promise<never>;
  readonly entries: ManifestEntry[] = [];
  private readonly mtime = new Date();

  constructor(path: string) {
    this.out = createWriteStream(path, { flags: 'wx' });
    let fail!: (err: Error) => void;
    this.failed = new Promise<never>((_, reject) => (fail = reject));
    this.failed.catch(() => {});
    const onError = (err: Error) => {
      this.failure ??= err;
      fail(err);
    };
    this.out.on('error', onError);
    this.pack.on('error', onError);
    this.closed = new Promise<void>((resolve, reject) => {
      this.out.on('close', () => (this.failure ? reject(this.failure) : resolve()));
      this.out.on('error', reject);
    });
    this.closed.catch(() => {});
    this.pack.pipe(this.out);
  }

  private entry(name: string, size: number): { sink: NodeJS.WritableStream; written: Promise<void> } {
    if (this.failure) throw this.failure;
    let sink!: NodeJS.WritableStream;
    const written = new Promise<void>((resolve, reject) => {
      sink = this.pack.entry({ name, size, mode: 0o644, mtime: this.mtime, type: 'file' }, (err) => (err ? reject(err) : resolve()));
    });
    return { sink, written };
  }

  async addBuffer(name: string, bytes: Buffer): Promise<void> {
    const { sink, written } = this.entry(name, bytes.length);
    sink.end(bytes);
    await Promise.race([written, this.failed]);
    this.entries.push({ name, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  }

  /** Streams a file of known size into the archive; returns the sha256 of what was written. */
  async addFile(name: string, path: string, size: number, onBytes: (n: number) => void): Promise<string> {
    const hash = createHash('sha256');
    const input = createReadStream(path, { highWaterMark: 1 << 20 });
    let sink: NodeJS.WritableStream | null = null;
    let written: Promise<void> | null = null;
    let bytes = 0;
    try {
      for await (const chunk of input as AsyncIterable<Buffer>) {
        if (!sink) ({ sink, written } = this.entry(name, size));
        bytes += chunk.length;
        if (bytes > size) break;
        hash.update(chunk);
        if (!sink.write(chunk)) await Promise.race([new Promise((r) => sink!.once('drain', r)), this.failed]);
        onBytes(chunk.length);
      }
    } catch (err) {
      input.destroy();
      throw err;
    }
    if (bytes !== size) {
      input.destroy();
      throw new ExportError(`${name} changed size while it was exported (${size} bytes expected); nothing was written`);
    }
    if (!sink) ({ sink, written } = this.entry(name, size));
    sink.end();
    await Promise.race([written!, this.failed]);
    const sha256 = hash.digest('hex');
    this.entries.push({ name, size, sha256 });
    return sha256;
  }

  async finish(): Promise<void> {
    this.pack.finalize();
    await Promise.race([this.closed, this.failed]);
  }

  destroy(): void {
    this.pack.destroy();
    this.out.destroy();
  }
}

export async function exportArchive(params: ExportParams): Promise<ExportResult> {
  const { meta, blobs, options, progress } = params;
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
    const snapshot = takeSnapshot(meta, blobs, options, workDir, warn);
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
      const sha256 = await writer.addFile(name, r.path, r.size, (n) => progress?.add(0, n));
      if (sha256 !== r.sha256) throw new ExportError(`${name} changed while it was written to the archive`);
    }
    for (const [sha, size] of snapshot.blobs) {
      const name = blobEntry(sha);
      let actual: string;
      try {
        actual = await writer.addFile(name, blobs.pathFor(sha), size, (n) => progress?.add(0, n));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
          throw new ExportError(`blob ${sha} vanished during the export (removed by garbage collection or a cache purge?); run the export again`);
        }
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
