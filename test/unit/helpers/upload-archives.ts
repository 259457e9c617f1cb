/** Small archives written to disk for the upload tests: zips (yazl) and tar.gz files (tar-stream). */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import * as tar from 'tar-stream';
import { ZipFile } from 'yazl';

const MTIME = new Date(Date.UTC(2020, 0, 1));

export async function writeZip(path: string, entries: Record<string, string | Buffer>, options: { compress?: boolean } = {}): Promise<string> {
  const zip = new ZipFile();
  for (const [name, content] of Object.entries(entries)) {
    zip.addBuffer(Buffer.from(content), name, { mtime: MTIME, compress: options.compress ?? true });
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
  return path;
}

export interface TarMember {
  name: string;
  content?: string | Buffer;
  type?: 'file' | 'directory' | 'symlink';
  pax?: Record<string, string>;
}

export async function writeTarGz(path: string, members: TarMember[]): Promise<string> {
  const pack = tar.pack();
  const done = pipeline(pack, createGzip(), createWriteStream(path));
  for (const member of members) {
    const type = member.type ?? 'file';
    const body = type === 'file' ? Buffer.from(member.content ?? '') : undefined;
    await new Promise<void>((resolve, reject) => {
      const header = { name: member.name, type, mtime: MTIME, ...(member.pax && { pax: member.pax }) } as tar.Header;
      const cb = (err?: Error | null) => (err ? reject(err) : resolve());
      if (body) pack.entry(header, body, cb);
      else pack.entry({ ...header, ...(type === 'symlink' && { linkname: 'x' }) }, cb);
    });
  }
  pack.finalize();
  await done;
  return path;
}

export const metadataText = (name: string, version: string, extra = '') => `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n${extra}\n`;

const WHEEL_TEXT = 'Wheel-Version: 1.0\nGenerator: larder-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n';

/** A wheel at `dir/filename` whose dist-info directory is `distInfo` (default: from the filename). */
export async function writeWheel(
  dir: string,
  filename: string,
  options: { distInfo?: string; metadata?: string | Buffer; omit?: ('METADATA' | 'WHEEL')[]; extra?: Record<string, string | Buffer> } = {},
): Promise<string> {
  const [name = '', version = ''] = filename.replace(/\.whl$/, '').split('-');
  const distInfo = options.distInfo ?? `${name}-${version}.dist-info`;
  const entries: Record<string, string | Buffer> = { [`${name}/__init__.py`]: 'VALUE = 1\n' };
  if (!options.omit?.includes('METADATA')) entries[`${distInfo}/METADATA`] = options.metadata ?? metadataText(name, version);
  if (!options.omit?.includes('WHEEL')) entries[`${distInfo}/WHEEL`] = WHEEL_TEXT;
  entries[`${distInfo}/RECORD`] = '';
  Object.assign(entries, options.extra);
  return writeZip(join(dir, filename), entries);
}
