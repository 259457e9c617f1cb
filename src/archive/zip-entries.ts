/**
 * Walking a zip's central directory with yauzl, bounded: the entry count is checked before the first
 * entry is read, each entry's name length as it is read, and duplicate names are found through a digest
 * per name, so memory grows by a few dozen bytes an entry whatever the names. A zip kept elsewhere (object
 * storage) is read by ranges: its end, its central directory, then the one entry wanted.
 */
import { createHash } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import type { Entry, RandomAccessReader, ZipFile } from 'yauzl';
import { LarderError } from '../base/errors.js';
import { lazyRequire } from '../base/lazy-require.js';
import { exceedsRatio, invalidDist, MAX_ARCHIVE_ENTRIES, MAX_ENTRY_NAME_BYTES, nameTooLong, ratioExceeded, tooManyEntries } from './archive-limits.js';

const yauzlLib = () => lazyRequire('yauzl') as typeof import('yauzl');

const ZIP_STORED = 0;
const ZIP_DEFLATED = 8;
const MiB = 1024 * 1024;

const zipNotAccepted = (err: unknown) => invalidDist(`ZIP archive not accepted: ${err instanceof Error ? err.message : String(err)}`);

/** An archive to look inside: a file on this machine, or bytes read by (inclusive) ranges. */
export type ArchiveBytes = string | { size: number; read: (range: { start: number; end: number }) => Promise<Readable> };

/**
 * Opens a zip, walks its central directory (count, name lengths, sizes, compression methods and
 * duplicate names checked on the way; `onEntry` may throw a LarderError to stop), then hands the
 * still-open zip to `finish`. The zip is always closed afterwards.
 */
export async function withZip<T>(archive: ArchiveBytes, onEntry: (entry: Entry) => void, finish: (zip: ZipFile) => Promise<T>): Promise<T> {
  const options = { lazyEntries: true, autoClose: false, validateEntrySizes: true };
  if (typeof archive === 'string') return walkZip(() => yauzlLib().openPromise(archive, options), onEntry, finish);
  const ranged = rangeReader(archive.read);
  try {
    return await walkZip(() => yauzlLib().fromRandomAccessReaderPromise(ranged.reader, archive.size, options), onEntry, finish);
  } catch (err) {
    // Bytes that could not be read say nothing about the archive: the read's own error is the answer.
    throw ranged.failure() ?? err;
  }
}

async function walkZip<T>(open: () => Promise<ZipFile>, onEntry: (entry: Entry) => void, finish: (zip: ZipFile) => Promise<T>): Promise<T> {
  let zip: ZipFile;
  try {
    zip = await open();
  } catch {
    throw invalidDist('File is not a zipfile');
  }
  try {
    if (zip.entryCount > MAX_ARCHIVE_ENTRIES) throw tooManyEntries();
    const seen = new Set<string>();
    let unpacked = 0;
    try {
      for await (const entry of zip.eachEntry()) {
        if (entry.fileNameLength > MAX_ENTRY_NAME_BYTES) throw nameTooLong();
        if (entry.compressionMethod !== ZIP_STORED && entry.compressionMethod !== ZIP_DEFLATED) {
          throw invalidDist('File does not use a supported compression type');
        }
        const digest = createHash('sha256').update(entry.fileName).digest('base64');
        if (seen.has(digest)) throw zipNotAccepted(new Error('Duplicate filename in central directory'));
        seen.add(digest);
        unpacked += entry.uncompressedSize;
        onEntry(entry);
      }
    } catch (err) {
      if (err instanceof LarderError) throw err;
      throw zipNotAccepted(err);
    }
    if (exceedsRatio(unpacked, zip.fileSize)) throw ratioExceeded();
    return await finish(zip);
  } finally {
    zip.close();
  }
}

/** The bytes of one entry, refused once they pass `limit`. */
export async function readEntry(zip: ZipFile, entry: Entry, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    const stream = await zip.openReadStreamPromise(entry);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) {
        stream.destroy();
        throw invalidDist(`${entry.fileName} is larger than ${limit / MiB} MB`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof LarderError) throw err;
    throw zipNotAccepted(err);
  }
  return Buffer.concat(chunks, size);
}

/** yauzl's reader over ranged reads (yauzl's `end` is exclusive, the ranges given to `read` inclusive), and the first read that failed. */
function rangeReader(read: Exclude<ArchiveBytes, string>['read']): { reader: RandomAccessReader; failure: () => Error | null } {
  let failed: Error | null = null;
  const fail = (out: PassThrough) => (err: unknown) => {
    failed ??= err instanceof Error ? err : new Error(String(err));
    out.destroy(failed);
  };
  const RangeReader = class extends yauzlLib().RandomAccessReader {
    override _readStreamForRange(start: number, end: number): Readable {
      const out = new PassThrough();
      if (end <= start) return out.end();
      read({ start, end: end - 1 }).then((bytes) => {
        bytes.once('error', fail(out));
        bytes.pipe(out);
      }, fail(out));
      return out;
    }
  };
  return { reader: new RangeReader(), failure: () => failed };
}
