/**
 * Pass 1 of `larder import`: streams through the archive once, staging blobs this store lacks under the
 * staging directory and records as files, and hashing every entry. Nothing is decided here: the manifest
 * comes last, so the checks (import-verify.ts) run once the whole archive is read.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import * as tar from 'tar-stream';
import type { BlobStore } from '../store/blob-store.js';
import { classifyEntry, HEADER_ENTRY, MANIFEST_ENTRY, shortName, type DbName, type ExportHeader, type ManifestEntry } from './archive-format.js';
import { checkHeader, ImportRefused, type Staged } from './import-verify.js';
import type { Progress } from './progress.js';

const MAX_HEADER = 1 << 20;
const MAX_MANIFEST = 1 << 30;

/**
 * Streams an entry into `path` (or nowhere), hashing it. Through `pipeline`, which waits for each drain
 * without leaving a listener behind (an entry of many chunks once added one per wait).
 */
async function drainEntry(entry: AsyncIterable<unknown>, path: string | null): Promise<{ size: number; sha256: string }> {
  const hash: Hash = createHash('sha256');
  let size = 0;
  async function* hashed(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      hash.update(chunk);
      size += chunk.length;
      yield chunk;
    }
  }
  const chunks = hashed(entry as AsyncIterable<Buffer>);
  if (path) {
    await pipeline(chunks, createWriteStream(path, { flags: 'wx' }));
  } else {
    for await (const _ of chunks) {
      // only hashed: this store has the blob already
    }
  }
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
export async function stage(file: string, blobs: BlobStore, stagingDir: string, progress: Progress | undefined): Promise<Staged> {
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
