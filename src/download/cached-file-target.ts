/** What to download for one variant of an upstream file: its URL, the size and hash it should have, its size cap. */
import type { FileEntry, FileVariant } from '../model/documents.js';
import { strongestHash } from './download-verifier.js';

/** `.metadata` files are a few kB; a long description takes them to a few hundred. */
export const MAX_METADATA_BYTES = 10 * 1024 * 1024;
/** Detached signatures are a few hundred bytes. */
const MAX_SIGNATURE_BYTES = 1024 * 1024;

export interface CachedFileTarget {
  url: string;
  expected: { hash: { name: string; hex: string } | null; size: number | null };
  maxBytes: number;
}

/** The download of `variant` of the file, capped at `maxFileSize`; null when the upstream has no such variant. */
export function cachedFileTarget(file: FileEntry, variant: FileVariant, maxFileSize: number): CachedFileTarget | null {
  if (variant === 'file') return { url: file.sourceUrl, expected: { hash: strongestHash(file.hashes), size: file.size }, maxBytes: maxFileSize };
  if (variant === 'metadata') {
    if (file.coreMetadata === false) return null;
    const hash = file.coreMetadata === true ? null : strongestHash(file.coreMetadata);
    return { url: `${file.sourceUrl}.metadata`, expected: { hash, size: null }, maxBytes: Math.min(maxFileSize, MAX_METADATA_BYTES) };
  }
  return file.hasSig ? { url: `${file.sourceUrl}.asc`, expected: { hash: null, size: null }, maxBytes: Math.min(maxFileSize, MAX_SIGNATURE_BYTES) } : null;
}

/** The sha256 the upstream lists for the file, when it lists one. */
export function sha256Of(target: CachedFileTarget): string | null {
  return target.expected.hash?.name === 'sha256' ? target.expected.hash.hex : null;
}
