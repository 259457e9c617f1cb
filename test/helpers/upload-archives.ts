/** Small archives written to disk for the upload tests: zips (yazl) and tar.gz files (tar-stream). */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
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

/**
 * One raw ustar header block, for archives tar-stream will not write: hundreds of thousands of members,
 * a broken checksum, GNU long names, pax headers of any size.
 */
export function tarHeader(name: string, options: { type?: string; size?: number; badChecksum?: boolean } = {}): Buffer {
  const block = Buffer.allocUnsafe(512).fill(0);
  block.write(name.slice(0, 100), 0, 'utf8');
  block.write(`0000644\0${'0000000\0'.repeat(2)}${(options.size ?? 0).toString(8).padStart(11, '0')}\0${'00000000000\0'}        `, 100, 'latin1');
  block.write(`${options.type ?? '0'}`, 156, 'latin1');
  block.write('ustar\x0000', 257, 'latin1');
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += block[i]!;
  if (options.badChecksum) sum += 1;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

/** A member's data, padded to whole blocks. */
export function tarData(data: string | Buffer): Buffer {
  const bytes = Buffer.from(data);
  return Buffer.concat([bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512)]);
}

/** A pax extended header (`x`, or `g` for a global one) with its records. */
export function paxHeader(records: Record<string, string>, type: 'x' | 'g' = 'x'): Buffer[] {
  let body = '';
  for (const [key, value] of Object.entries(records)) {
    const rest = ` ${key}=${value}\n`;
    let length = Buffer.byteLength(rest) + 1;
    while (String(length).length + Buffer.byteLength(rest) !== length) length++;
    body += `${length}${rest}`;
  }
  return [tarHeader('PaxHeader', { type, size: Buffer.byteLength(body) }), tarData(body)];
}

/** A .tar.gz of raw blocks (streamed: an iterable of a hundred thousand members is fine), ended by two zero blocks. */
export async function writeRawTarGz(path: string, blocks: Iterable<Buffer>): Promise<string> {
  // Blocks go to gzip in 1 MB batches: one write per 512-byte block would take seconds for 100,000 members.
  function* withEnd() {
    let batch: Buffer[] = [];
    let size = 0;
    for (const block of blocks) {
      batch.push(block);
      size += block.length;
      if (size >= 1024 * 1024) {
        yield Buffer.concat(batch);
        batch = [];
        size = 0;
      }
    }
    yield Buffer.concat([...batch, Buffer.alloc(1024)]);
  }
  await pipeline(Readable.from(withEnd()), createGzip({ level: 1 }), createWriteStream(path));
  return path;
}
