/**
 * The one rule deciding whether an upload under an existing filename is the same file (a harmless re-upload,
 * answered as success) or a conflict (`409 File already exists…`). It is pypi.org's rule (Warehouse's
 * `_is_duplicate_file`): the sha256 must match, and so must the blake2b_256 digest whenever both sides know it.
 * A side without a blake2b_256 (empty) is decided by the sha256 alone. Digests are lowercase hex on both sides.
 */
export interface FileDigests {
  sha256: string;
  /** Empty, null or absent when not known. */
  blake2b_256?: string | null;
}

export function isSameFile(existing: FileDigests, incoming: FileDigests): boolean {
  if (existing.sha256 !== incoming.sha256) return false;
  const a = existing.blake2b_256;
  const b = incoming.blake2b_256;
  if (!a || !b) return true;
  return a === b;
}
