/** What the HTML and JSON forms of a simple project page agree on. */
import type { FileEntry, ProjectPage, ProjectStatus } from '../model/documents.js';
import { sortVersions } from '../model/versions.js';
import { compareCodePoints } from './json-wire.js';
import { indexHashes } from './hashes.js';

const SURROGATE = /[\uD800-\uDFFF]/;

/** Files ordered as PyPI orders them: by version (PEP 440), then filename (by code point). */
export function sortedFiles(files: readonly FileEntry[]): FileEntry[] {
  // Each distinct version is parsed once and ranked; files then compare by rank (parsing dominates).
  const versions = sortVersions(new Set(files.map((f) => f.version ?? '')));
  const rank = new Map(versions.map((v, i) => [v, i]));
  const ranked = files.map((file) => ({ file, rank: rank.get(file.version ?? '')! }));
  // `<` on strings orders by UTF-16 unit, which is code-point order unless a name holds a surrogate pair.
  const byName = files.some((f) => SURROGATE.test(f.filename)) ? compareCodePoints : (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  ranked.sort((a, b) => a.rank - b.rank || byName(a.file.filename, b.file.filename));
  return ranked.map((r) => r.file);
}

/** The page's project status; a page without one is active (PyPI always states it). */
export function projectStatus(page: Pick<ProjectPage, 'status'>): ProjectStatus & Required<Pick<ProjectStatus, 'status'>> {
  const status = page.status?.status ?? 'active';
  const reason = page.status?.reason;
  return reason ? { status, reason } : { status };
}

/** `requires-python`: "" (old uploads) means none. */
export function requiresPython(file: Pick<FileEntry, 'requiresPython'>): string | null {
  return file.requiresPython ? file.requiresPython : null;
}

/** Yanked reason for display: null when not yanked, "" when yanked without a reason. */
export function yankedReason(file: Pick<FileEntry, 'yanked' | 'yankedReason'>): string | null {
  return file.yanked ? (file.yankedReason ?? '') : null;
}

/**
 * The `.metadata` file's publishable hashes, `true` when it exists with no hash a client can check,
 * `false` when there is none.
 */
export function coreMetadata(file: Pick<FileEntry, 'coreMetadata'>): Record<string, string> | true | false {
  if (file.coreMetadata === false || file.coreMetadata === true) return file.coreMetadata;
  const hashes = indexHashes(file.coreMetadata);
  return Object.keys(hashes).length > 0 ? hashes : true;
}
