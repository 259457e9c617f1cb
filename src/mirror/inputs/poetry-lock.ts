/**
 * `poetry.lock`: `[[package]]` with `name`, `version`, optional `markers`, and its files with hashes,
 * either in the package (`files = [{ file, hash }]`, lock format 2) or under `[metadata.files]` (format 1).
 * Packages whose `source` is a directory, file, URL or git repository are reported as not mirrorable.
 */
import type { LockedFile, MirrorInputs } from '../requirement.js';
import { lockedPackage, readToml, requireField, sha256Of, str, tables, type Table } from './toml-file.js';

const files = (list: unknown): LockedFile[] =>
  tables(list)
    .map((f) => ({ filename: str(f.file) ?? '', sha256: sha256Of(f.hash) }))
    .filter((f) => f.filename !== '');

export function readPoetryLock(path: string, into: MirrorInputs): void {
  const doc = readToml(path);
  const oldFiles = ((doc.metadata as Table | undefined)?.files ?? {}) as Table;
  for (const pkg of tables(doc.package)) {
    const name = requireField(pkg, 'name', path);
    const version = requireField(pkg, 'version', path);
    const origin = `${path}: ${name} ${version}`;
    const sourceType = str((pkg.source as Table | undefined)?.type);
    if (sourceType && sourceType !== 'legacy') {
      into.skipped.push(`${origin}: from a ${sourceType} source, not an index; not mirrorable`);
      continue;
    }
    const listed = pkg.files !== undefined ? files(pkg.files) : files(oldFiles[name]);
    into.locked.push(lockedPackage(name, version, listed, origin, str(pkg.markers)));
  }
}
