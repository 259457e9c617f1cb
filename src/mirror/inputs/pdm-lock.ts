/**
 * `pdm.lock`: `[[package]]` with `name`, `version`, optional `marker`, and its files with hashes, in the
 * package (`files = [{ file, hash }]`, lock format 4.1+) or under `[metadata.files]` as `"name version"`
 * (format 4.0; `{ url, hash }` entries). Packages from a path, a URL or a VCS (`path`, `url`, `git`… keys) are reported as not
 * mirrorable. An entry with `extras` repeats a package (same name and version) for the dependencies its
 * extras add, which are locked as packages of their own, so it is not read twice.
 */
import { filenameOfUrl, type LockedFile, type MirrorInputs } from '../requirement.js';
import { lockedPackage, readToml, requireField, sha256Of, str, tables, type Table } from './toml-file.js';

export function readPdmLock(path: string, into: MirrorInputs): void {
  const doc = readToml(path);
  const oldFiles = ((doc.metadata as Table | undefined)?.files ?? {}) as Table;
  for (const pkg of tables(doc.package)) {
    if (Array.isArray(pkg.extras) && pkg.extras.length > 0) continue;
    const name = requireField(pkg, 'name', path);
    const origin = `${path}: ${name}`;
    if (['path', 'url', 'git', 'hg', 'svn', 'bzr'].some((k) => pkg[k] !== undefined)) {
      into.skipped.push(`${origin}: not from an index; not mirrorable`);
      continue;
    }
    const version = requireField(pkg, 'version', path);
    const files = tables(pkg.files ?? oldFiles[`${name} ${version}`])
      .map((f): LockedFile | null => {
        const filename = str(f.file) ?? (str(f.url) ? filenameOfUrl(str(f.url)!) : null);
        return filename ? { filename, sha256: sha256Of(f.hash) } : null;
      })
      .filter((f): f is LockedFile => f !== null);
    into.locked.push(lockedPackage(name, version, files, `${origin} ${version}`, str(pkg.marker)));
  }
}
