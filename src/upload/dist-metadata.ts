/**
 * Looking inside an uploaded distribution (Warehouse `_is_valid_dist_file` and the METADATA extraction):
 * the archive must be sound, and a wheel's `*.dist-info/METADATA` is returned byte for byte for PEP 658.
 * Archives are streamed or read through their central directory; no archive is ever held in memory. A
 * wheel kept elsewhere (object storage) is read the same way, by ranges: its end, its central directory,
 * then the one entry.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { PassThrough, type Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { Entry, RandomAccessReader, ZipFile } from 'yauzl';
import { lazyRequire } from '../base/lazy-require.js';

const tarStream = () => lazyRequire('tar-stream') as typeof import('tar-stream');
const yauzlLib = () => lazyRequire('yauzl') as typeof import('yauzl');
import { LarderError } from '../base/errors.js';

const MiB = 1024 * 1024;
/** Largest METADATA file returned; a real one is a few kB, a long description may reach a few hundred. */
export const MAX_METADATA_SIZE = 10 * MiB;
/** Warehouse's decompression-bomb rule: above 64 MiB unpacked, at most 50 times the packed size. */
const COMPRESSION_RATIO_MIN_SIZE = 64 * MiB;
const COMPRESSION_RATIO_THRESHOLD = 50;

const ZIP_STORED = 0;
const ZIP_DEFLATED = 8;

const invalidDist = (detail: string) => new LarderError('invalid_distribution', `Invalid distribution file. ${detail}`);
const ratioExceeded = () => invalidDist(`File exceeds compression ratio of ${COMPRESSION_RATIO_THRESHOLD}`);
const zipNotAccepted = (err: unknown) => invalidDist(`ZIP archive not accepted: ${err instanceof Error ? err.message : String(err)}`);

/** An archive to look inside: a file on this machine, or bytes read by (inclusive) ranges. */
export type ArchiveBytes = string | { size: number; read: (range: { start: number; end: number }) => Promise<Readable> };

/**
 * The exact bytes of the wheel's `{name}-{version}.dist-info/METADATA`, name and version as written in
 * the filename; when that is absent, the only `*.dist-info/METADATA` in the wheel, if there is exactly one.
 */
export async function readWheelMetadata(wheel: ArchiveBytes, filename: string): Promise<Buffer> {
  const [namePart = '', versionPart = ''] = filename.replace(/\.whl$/i, '').split('-');
  const expectedDir = `${namePart}-${versionPart}.dist-info`;
  const names = new Set<string>();
  const metadataEntries = new Map<string, Entry>();

  return withZip(
    wheel,
    (entry) => {
      if (/^[^/]+\.dist-info\/(METADATA|WHEEL)$/.test(entry.fileName)) names.add(entry.fileName);
      if (/^[^/]+\.dist-info\/METADATA$/.test(entry.fileName)) metadataEntries.set(entry.fileName, entry);
    },
    async (zip) => {
      let entry = metadataEntries.get(`${expectedDir}/METADATA`);
      if (!entry && metadataEntries.size === 1) entry = [...metadataEntries.values()][0];
      const dir = entry ? entry.fileName.slice(0, -'/METADATA'.length) : expectedDir;
      if (!names.has(`${dir}/WHEEL`)) throw invalidDist(`WHEEL not found at ${dir}/WHEEL`);
      if (!entry) {
        throw new LarderError('invalid_distribution', `Wheel '${filename}' does not contain the required METADATA file: ${expectedDir}/METADATA`);
      }
      if (entry.uncompressedSize > MAX_METADATA_SIZE) {
        throw invalidDist(`METADATA is larger than ${MAX_METADATA_SIZE / MiB} MB`);
      }
      return readEntry(zip, entry, MAX_METADATA_SIZE);
    },
  );
}

/**
 * An sdist (`.tar.gz` or `.zip`) must be a sound archive with exactly one top-level directory that holds
 * `PKG-INFO`. Resolves when it is, rejects with a 400 otherwise.
 */
export async function checkSdist(path: string, filename: string): Promise<void> {
  const layout = new SdistLayout();
  if (/\.zip$/i.test(filename)) {
    await withZip(
      path,
      (entry) => layout.add(entry.fileName, !entry.fileName.endsWith('/')),
      async () => undefined,
    );
  } else {
    await scanTarGz(path, layout);
  }
  layout.check();
}

/** Collects what the sdist rule needs while entries stream past: top-level names and PKG-INFO files. */
class SdistLayout {
  private readonly topLevel = new Set<string>();
  private readonly pkgInfoDirs = new Set<string>();

  add(name: string, isFile: boolean): void {
    const path = name.replace(/^(\.\/)+/, '');
    const top = path.split('/', 1)[0]!;
    if (top === '' || top === '.') return;
    this.topLevel.add(top);
    if (isFile && path === `${top}/PKG-INFO`) this.pkgInfoDirs.add(top);
  }

  check(): void {
    if (this.topLevel.size !== 1) throw invalidDist('Incorrect number of top-level directories in sdist');
    const [top] = this.topLevel;
    if (!this.pkgInfoDirs.has(top!)) throw invalidDist(`PKG-INFO not found at ${top}/PKG-INFO`);
  }
}

async function scanTarGz(path: string, layout: SdistLayout): Promise<void> {
  const packedSize = (await stat(path)).size;
  // Old v7 tarballs carry no `ustar` magic; tar-stream still verifies every header checksum.
  const extract = tarStream().extract({ allowUnknownFormat: true } as Parameters<typeof import('tar-stream').extract>[0]);
  const source = createReadStream(path);
  const gunzip = createGunzip();
  const guard = ratioGuard(packedSize);
  // Wired by hand rather than with stream.pipeline: tar-stream's streamx streams may emit a second
  // 'error' after pipeline has let go of them, which would surface as an uncaught exception.
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      for (const stream of [source, gunzip, guard, extract]) stream.destroy();
      reject(err instanceof LarderError ? err : invalidDist('File is not a tarfile'));
    };
    for (const stream of [source, gunzip, guard]) stream.on('error', fail);
    extract.on('error', fail);
    extract.on('entry', (header, stream, next) => {
      const pax = header.pax;
      if (pax && typeof pax === 'object' && Object.keys(pax).some((key) => key.startsWith('GNU.sparse.'))) {
        fail(invalidDist('tar archive not accepted: Sparse members are not allowed.'));
        return;
      }
      if (!header.type) {
        fail(invalidDist(`tar archive not accepted: Member '${header.name}' has an unsupported type.`));
        return;
      }
      layout.add(header.name, header.type === 'file' || header.type === 'contiguous-file');
      stream.on('end', () => next());
      stream.resume();
    });
    extract.on('finish', () => {
      if (settled) return;
      settled = true;
      resolve();
    });
    extract.on('close', () => fail(invalidDist('File is not a tarfile')));
    source
      .pipe(gunzip)
      .pipe(guard)
      .pipe(extract as unknown as NodeJS.WritableStream);
  });
}

/** Passes bytes through, failing once the unpacked size passes Warehouse's compression-ratio rule. */
function ratioGuard(packedSize: number): Transform {
  let unpacked = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      unpacked += chunk.length;
      if (unpacked > COMPRESSION_RATIO_MIN_SIZE && unpacked / packedSize > COMPRESSION_RATIO_THRESHOLD) {
        callback(ratioExceeded());
        return;
      }
      callback(null, chunk);
    },
  });
}

/**
 * Opens a zip, walks its central directory (sizes, compression methods and duplicate names checked on
 * the way), then hands the still-open zip to `finish`. The zip is always closed afterwards.
 */
async function withZip<T>(archive: ArchiveBytes, onEntry: (entry: Entry) => void, finish: (zip: ZipFile) => Promise<T>): Promise<T> {
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
    const seen = new Set<string>();
    let unpacked = 0;
    try {
      for await (const entry of zip.eachEntry()) {
        if (entry.compressionMethod !== ZIP_STORED && entry.compressionMethod !== ZIP_DEFLATED) {
          throw invalidDist('File does not use a supported compression type');
        }
        if (seen.has(entry.fileName)) throw zipNotAccepted(new Error('Duplicate filename in central directory'));
        seen.add(entry.fileName);
        unpacked += entry.uncompressedSize;
        onEntry(entry);
      }
    } catch (err) {
      if (err instanceof LarderError) throw err;
      throw zipNotAccepted(err);
    }
    if (unpacked > COMPRESSION_RATIO_MIN_SIZE && unpacked / zip.fileSize > COMPRESSION_RATIO_THRESHOLD) {
      throw ratioExceeded();
    }
    return await finish(zip);
  } finally {
    zip.close();
  }
}

async function readEntry(zip: ZipFile, entry: Entry, limit: number): Promise<Buffer> {
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
