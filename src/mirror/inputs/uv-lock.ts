/**
 * `uv.lock`: `[[package]]` with `name`, `version`, `source = { registry = … }`, `sdist = { url, hash }` and
 * `wheels = [{ url, hash }]`. The project itself and packages from git, paths or URLs (any source but a
 * registry) are left out, the latter reported as not mirrorable.
 */
import { filenameOfUrl, type LockedFile, type MirrorInputs } from '../requirement.js';
import { lockedPackage, readToml, requireField, sha256Of, str, tables, type Table } from './toml-file.js';

const lockedFile = (f: Table): LockedFile | null => {
  const url = str(f.url) ?? str(f.path);
  return url ? { filename: filenameOfUrl(url), sha256: sha256Of(f.hash) } : null;
};

export function readUvLock(path: string, into: MirrorInputs): void {
  const doc = readToml(path);
  for (const pkg of tables(doc.package)) {
    const name = requireField(pkg, 'name', path);
    const source = (pkg.source ?? {}) as Table;
    const origin = `${path}: ${name}`;
    if (source.registry === undefined) {
      if (source.editable === undefined && source.virtual === undefined) into.skipped.push(`${origin}: not from a registry; not mirrorable`);
      continue;
    }
    const version = requireField(pkg, 'version', path);
    const files = [...tables(pkg.wheels), ...(pkg.sdist ? tables([pkg.sdist]) : [])].map(lockedFile).filter((f): f is LockedFile => f !== null);
    into.locked.push(lockedPackage(name, version, files, `${origin} ${version}`));
  }
}
