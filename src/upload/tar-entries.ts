/**
 * The members of a tar stream, read header by header and handed to `onMember` without their data, in
 * constant memory: one 512-byte block, and one pax or GNU long-name header of at most
 * MAX_TAR_EXTENDED_HEADER bytes. Each written chunk is handled in one pass over it, so no step takes time
 * in proportion to the archive. `onMember` may throw to stop reading at once.
 *
 * The framing follows Python's `tarfile` (what Warehouse reads sdists with): v7, ustar, GNU and pax
 * headers; pax `path` and `size`, and global pax headers for the members after them; only regular files
 * carry data; reading ends at the first all-zero block. Unlike `tarfile`, a header with a bad checksum
 * anywhere is refused, as are sparse members and types `tarfile` does not know.
 */
import { Writable } from 'node:stream';
import {
  invalidDist,
  MAX_ARCHIVE_ENTRIES,
  MAX_ENTRY_NAME_BYTES,
  MAX_TAR_EXTENDED_HEADER,
  MAX_TAR_EXTENDED_HEADERS_IN_A_ROW,
  nameTooLong,
  tarNotAccepted,
  tooManyEntries,
} from '../archive/archive-limits.js';

export interface TarMember {
  /** The member's path as written (pax `path` or GNU long name applied), not normalized. */
  name: string;
  kind: 'file' | 'directory' | 'other';
}

const BLOCK = 512;
const REGULAR = new Set(['0', '\0', '7']);
const NO_DATA = new Set(['1', '2', '3', '4', '5', '6']);
const EXTENDED = new Set(['x', 'g', 'L', 'K']);
const USTAR = Buffer.from('ustar\0', 'latin1');
const ZERO_BLOCK = Buffer.alloc(BLOCK);

export const notATar = () => invalidDist('File is not a tarfile');

/** What pax headers set for the next member (local) or all later ones (global). */
interface PaxFields {
  path?: string;
  size?: number;
  sparse?: boolean;
}

interface PendingExtended {
  type: string;
  bytes: Buffer;
  filled: number;
}

export class TarEntryReader extends Writable {
  private readonly block = Buffer.alloc(BLOCK);
  private blockFilled = 0;
  /** Data and padding bytes still to pass over. */
  private skip = 0;
  private extended: PendingExtended | null = null;
  private extendedInARow = 0;
  private local: PaxFields = {};
  private global: PaxFields = {};
  private longName: string | null = null;
  private members = 0;
  private ended = false;

  constructor(private readonly onMember: (member: TarMember) => void) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    try {
      this.consume(chunk);
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  override _final(callback: (error?: Error | null) => void): void {
    // Like tar-stream (larder's reader before this one): a stream that stops inside a member is not a tar.
    callback(this.ended || (this.blockFilled === 0 && this.skip === 0 && this.extended === null) ? null : notATar());
  }

  private consume(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && !this.ended) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        this.skip -= n;
        at += n;
      } else if (this.extended) {
        const ext = this.extended;
        const n = Math.min(ext.bytes.length - ext.filled, chunk.length - at);
        chunk.copy(ext.bytes, ext.filled, at, at + n);
        ext.filled += n;
        at += n;
        if (ext.filled === ext.bytes.length) this.finishExtended(ext);
      } else {
        const n = Math.min(BLOCK - this.blockFilled, chunk.length - at);
        chunk.copy(this.block, this.blockFilled, at, at + n);
        this.blockFilled += n;
        at += n;
        if (this.blockFilled === BLOCK) {
          this.blockFilled = 0;
          this.onHeader(this.block);
        }
      }
    }
  }

  private onHeader(block: Buffer): void {
    if (block.equals(ZERO_BLOCK)) {
      this.ended = true;
      return;
    }
    if (!checksumMatches(block)) throw notATar();
    const size = readNumber(block, 124, 12);
    if (size === null) throw notATar();
    const type = String.fromCharCode(block[156]!);
    if (EXTENDED.has(type)) {
      this.startExtended(type, size);
      return;
    }
    this.extendedInARow = 0;

    let name = this.local.path ?? this.longName ?? this.global.path ?? headerName(block);
    if (Buffer.byteLength(name) > MAX_ENTRY_NAME_BYTES) throw nameTooLong();
    const sparse = this.local.sparse || this.global.sparse || type === 'S';
    const dataSize = this.local.size ?? this.global.size ?? size;
    this.local = {};
    this.longName = null;
    if (sparse) throw tarNotAccepted('Sparse members are not allowed.');
    if (!REGULAR.has(type) && !NO_DATA.has(type)) throw tarNotAccepted(`Member '${name}' has an unsupported type.`);
    if (++this.members > MAX_ARCHIVE_ENTRIES) throw tooManyEntries();

    const isDirectory = type === '5' || ((type === '0' || type === '\0') && name.endsWith('/'));
    if (isDirectory) name = name.replace(/\/+$/, '');
    this.onMember({ name, kind: isDirectory ? 'directory' : REGULAR.has(type) ? 'file' : 'other' });
    if (REGULAR.has(type) && !isDirectory) this.skip = padded(dataSize);
  }

  private startExtended(type: string, size: number): void {
    if (++this.extendedInARow > MAX_TAR_EXTENDED_HEADERS_IN_A_ROW) throw tarNotAccepted('Too many extended headers before a member.');
    if (type === 'L' && size > MAX_ENTRY_NAME_BYTES + 1) throw nameTooLong();
    if (size > MAX_TAR_EXTENDED_HEADER) throw tarNotAccepted(`An extended header is larger than ${MAX_TAR_EXTENDED_HEADER / 1024 / 1024} MB.`);
    const ext = { type, bytes: Buffer.alloc(size), filled: 0 };
    if (size === 0) this.finishExtended(ext);
    else this.extended = ext;
  }

  private finishExtended(ext: PendingExtended): void {
    this.extended = null;
    this.skip = padded(ext.bytes.length) - ext.bytes.length;
    if (ext.type === 'L') this.longName = cString(ext.bytes, 0, ext.bytes.length);
    else if (ext.type === 'x') this.local = paxFields(ext.bytes);
    else if (ext.type === 'g') this.global = paxFields(ext.bytes);
  }
}

const padded = (size: number) => Math.ceil(size / BLOCK) * BLOCK;

/** The records `<length> <key>=<value>\n` of a pax header (Python's `_proc_pax` rules), reduced to what larder reads. */
function paxFields(bytes: Buffer): PaxFields {
  const fields: PaxFields = {};
  let at = 0;
  while (at < bytes.length && bytes[at] !== 0) {
    const space = bytes.indexOf(0x20, at);
    const lengthText = space === -1 ? '' : bytes.toString('latin1', at, space);
    const length = /^\d{1,8}$/.test(lengthText) ? Number(lengthText) : 0;
    const end = at + length;
    const equals = bytes.indexOf(0x3d, space + 1);
    if (length < 5 || end > bytes.length || bytes[end - 1] !== 0x0a || equals === -1 || equals >= end - 1 || equals === space + 1) {
      throw notATar();
    }
    const key = bytes.toString('utf8', space + 1, equals);
    if (key === 'path') fields.path = bytes.toString('utf8', equals + 1, end - 1);
    else if (key === 'size') {
      const value = bytes.toString('latin1', equals + 1, end - 1);
      if (!/^\d{1,15}$/.test(value)) throw notATar();
      fields.size = Number(value);
    } else if (key.startsWith('GNU.sparse.')) fields.sparse = true;
    at = end;
  }
  return fields;
}

function headerName(block: Buffer): string {
  const name = cString(block, 0, 100);
  const isPosixUstar = block.subarray(257, 263).equals(USTAR);
  return isPosixUstar && block[345] !== 0 ? `${cString(block, 345, 155)}/${name}` : name;
}

function cString(bytes: Buffer, start: number, length: number): string {
  const nul = bytes.indexOf(0, start);
  const end = nul === -1 || nul > start + length ? start + length : nul;
  return bytes.toString('utf8', start, end);
}

/** An octal (space/NUL padded) or base-256 number field; null when it is neither or negative. */
function readNumber(block: Buffer, start: number, length: number): number | null {
  const field = block.subarray(start, start + length);
  if (field[0] === 0x80) {
    let value = 0;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i]!;
    return Number.isSafeInteger(value) ? value : null;
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  return /^[0-7]+$/.test(text) && text.length <= 17 ? parseInt(text, 8) : null;
}

/** The stored checksum equals the sum of the header's bytes (unsigned, or signed as some old tars wrote it) with the checksum field as spaces. */
function checksumMatches(block: Buffer): boolean {
  const stored = readNumber(block, 148, 8);
  if (stored === null) return false;
  let unsigned = 8 * 0x20;
  let signed = 8 * 0x20;
  for (let i = 0; i < BLOCK; i++) {
    if (i >= 148 && i < 156) continue;
    const byte = block[i]!;
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  return stored === unsigned || stored === signed;
}
