/**
 * `pylock.toml` (PEP 751): `[[packages]]` with `name`, `version`, an optional `marker`, and the files as
 * `wheels = [{ name?, url?, hashes = { sha256 = … } }]` and `sdist = { … }`. Packages from a VCS, a
 * directory or an archive URL (no `version`, or no wheels and no sdist) are reported as not mirrorable.
 */
import { filenameOfUrl, InputError, type LockedFile, type MirrorInputs } from '../requirement.js';
import { lockedPackage, readToml, requireField, str, tables, type Table } from './toml-file.js';

function lockedFile(file: Table): LockedFile | null {
  const filename = str(file.name) ?? (str(file.url) ? filenameOfUrl(str(file.url)!) : null) ?? (str(file.path) ? filenameOfUrl(str(file.path)!) : null);
  if (!filename) return null;
  const hashes = (file.hashes ?? {}) as Table;
  return { filename, sha256: str(hashes.sha256)?.toLowerCase() ?? null };
}

export function readPylock(path: string, into: MirrorInputs): void {
  const doc = readToml(path);
  if (str(doc['lock-version']) === null) throw new InputError(`${path}: not a pylock.toml (no lock-version)`);
  for (const pkg of tables(doc.packages)) {
    const name = requireField(pkg, 'name', path);
    const origin = `${path}: ${name}`;
    const version = str(pkg.version);
    const files = [...tables(pkg.wheels), ...tables(pkg.sdist ? [pkg.sdist] : [])].map(lockedFile).filter((f): f is LockedFile => f !== null);
    if (!version || (pkg.vcs ?? pkg.directory ?? pkg.archive)) {
      into.skipped.push(`${origin}: not from an index (VCS, directory or archive); not mirrorable`);
      continue;
    }
    into.locked.push(lockedPackage(name, version, files, origin, str(pkg.marker)));
  }
}
