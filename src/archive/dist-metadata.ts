/**
 * A wheel's `*.dist-info/METADATA`, returned byte for byte for PEP 658 (Warehouse's METADATA extraction).
 * The wheel is read through its central directory (zip-entries.ts); no archive is ever held in memory.
 *
 * Uploads read it strictly, by pip's rule (`wheel_dist_info_dir`): exactly one top-level `*.dist-info`
 * directory, refused as soon as a second one appears, and named for the filename's project and version.
 * Upstream wheels are read leniently (their METADATA is served, installing them is pip's business).
 */
import type { Entry } from 'yauzl';
import { LarderError } from '../base/errors.js';
import { normalizeName } from '../model/names.js';
import { pyRepr } from '../model/py-repr.js';
import { pep440String } from '../model/versions.js';
import { invalidDist, MAX_DIST_INFO_DIRS, MAX_METADATA_SIZE } from './archive-limits.js';
import { type ArchiveBytes, readEntry, withZip } from './zip-entries.js';

export { MAX_METADATA_SIZE } from './archive-limits.js';
export type { ArchiveBytes } from './zip-entries.js';

export interface WheelReadOptions {
  /** The upload rule: one `.dist-info` directory, matching the filename. */
  strict?: boolean;
}

const DIST_INFO_FILE = /^([^/]+\.dist-info)\/(METADATA|WHEEL)$/;

/**
 * The exact bytes of the wheel's `{name}-{version}.dist-info/METADATA`, name and version as written in
 * the filename; when that is absent (and not `strict`), the only `*.dist-info/METADATA` in the wheel,
 * if there is exactly one.
 */
export async function readWheelMetadata(wheel: ArchiveBytes, filename: string, options: WheelReadOptions = {}): Promise<Buffer> {
  const [namePart = '', versionPart = ''] = filename.replace(/\.whl$/i, '').split('-');
  const expectedDir = `${namePart}-${versionPart}.dist-info`;
  const dirs = new Set<string>();
  const metadataEntries = new Map<string, Entry>();
  const withWheelFile = new Set<string>();

  return withZip(
    wheel,
    (entry) => {
      const top = entry.fileName.split('/', 1)[0]!;
      if (top.endsWith('.dist-info') && !dirs.has(top)) {
        if (options.strict && dirs.size > 0) {
          throw invalidDist(`Wheel has more than one .dist-info directory (${pyRepr([...dirs][0]!, 60)} and ${pyRepr(top, 60)}); pip refuses to install it.`);
        }
        if (dirs.size === MAX_DIST_INFO_DIRS) throw invalidDist(`Wheel has more than ${MAX_DIST_INFO_DIRS} .dist-info directories.`);
        dirs.add(top);
      }
      const file = DIST_INFO_FILE.exec(entry.fileName);
      if (file?.[2] === 'METADATA') metadataEntries.set(file[1]!, entry);
      else if (file) withWheelFile.add(file[1]!);
    },
    async (zip) => {
      const dir = options.strict ? strictDir(dirs, expectedDir, namePart, versionPart) : lenientDir(metadataEntries, expectedDir);
      if (!withWheelFile.has(dir)) throw invalidDist(`WHEEL not found at ${dir}/WHEEL`);
      const entry = metadataEntries.get(dir);
      if (!entry) {
        throw new LarderError('invalid_distribution', `Wheel ${pyRepr(filename)} does not contain the required METADATA file: ${dir}/METADATA`);
      }
      if (entry.uncompressedSize > MAX_METADATA_SIZE) {
        throw invalidDist(`METADATA is larger than ${MAX_METADATA_SIZE / 1024 / 1024} MB`);
      }
      return readEntry(zip, entry, MAX_METADATA_SIZE);
    },
  );
}

/** The named directory, else the only one with a METADATA. */
function lenientDir(metadataEntries: Map<string, Entry>, expectedDir: string): string {
  if (metadataEntries.has(expectedDir) || metadataEntries.size !== 1) return expectedDir;
  return [...metadataEntries.keys()][0]!;
}

/** The one `.dist-info` directory, which must be `{name}-{version}.dist-info` for the filename's name and version once both are normalized. */
function strictDir(dirs: Set<string>, expectedDir: string, namePart: string, versionPart: string): string {
  const [dir] = dirs;
  if (dir === undefined) return expectedDir;
  const stem = dir.slice(0, -'.dist-info'.length);
  const dash = stem.lastIndexOf('-');
  const version = pep440String(stem.slice(dash + 1));
  const matches = dash > 0 && normalizeName(stem.slice(0, dash)) === normalizeName(namePart) && version !== null && version === pep440String(versionPart);
  if (!matches) {
    throw invalidDist(`The wheel's .dist-info directory ${pyRepr(dir, 60)} does not match its filename: use ${pyRepr(expectedDir)}.`);
  }
  return dir;
}
