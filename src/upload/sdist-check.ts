/**
 * An sdist (`.tar.gz` or `.zip`) must be a sound archive with exactly one top-level directory that holds
 * `PKG-INFO` (Warehouse `_is_valid_dist_file`). The archive is read as a stream (a zip through its
 * central directory) and refused at the first entry that breaks a rule: a second top-level name ends the
 * reading there, so the names of a hostile archive are never collected.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { LarderError } from '../base/errors.js';
import { exceedsRatio, invalidDist, ratioExceeded } from '../archive/archive-limits.js';
import { notATar, TarEntryReader } from './tar-entries.js';
import { withZip } from '../archive/zip-entries.js';

const wrongTopLevel = () => invalidDist('Incorrect number of top-level directories in sdist');

/** Resolves when the sdist is sound, rejects with a 400 otherwise. */
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

/** What the sdist rule needs while entries stream past: the one top-level name, and whether it holds PKG-INFO. */
export class SdistLayout {
  private top: string | null = null;
  private hasPkgInfo = false;

  /** Throws at the first entry under a second top-level name. */
  add(name: string, isFile: boolean): void {
    const path = name.replace(/^(\.\/)+/, '');
    if (path === '' || path === '.') return;
    // An absolute path is outside any top-level directory: it counts as a top-level name of its own.
    const top = path.startsWith('/') ? '/' : path.split('/', 1)[0]!;
    if (this.top === null) this.top = top;
    else if (top !== this.top) throw wrongTopLevel();
    if (isFile && path === `${top}/PKG-INFO`) this.hasPkgInfo = true;
  }

  check(): void {
    if (this.top === null || this.top === '/') throw wrongTopLevel();
    if (!this.hasPkgInfo) throw invalidDist(`PKG-INFO not found at ${this.top}/PKG-INFO`);
  }
}

async function scanTarGz(path: string, layout: SdistLayout): Promise<void> {
  const packedSize = (await stat(path)).size;
  const reader = new TarEntryReader((member) => layout.add(member.name, member.kind === 'file'));
  try {
    await pipeline(createReadStream(path), createGunzip(), ratioGuard(packedSize), reader);
  } catch (err) {
    throw err instanceof LarderError ? err : notATar();
  }
}

/** Passes bytes through, failing once the unpacked size passes Warehouse's compression-ratio rule. */
function ratioGuard(packedSize: number): Transform {
  let unpacked = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      unpacked += chunk.length;
      if (exceedsRatio(unpacked, packedSize)) {
        callback(ratioExceeded());
        return;
      }
      callback(null, chunk);
    },
  });
}
