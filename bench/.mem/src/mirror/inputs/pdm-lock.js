/**
 * `pdm.lock`: `[[package]]` with `name`, `version`, optional `marker`, and its files with hashes, in the
 * package (`files = [{ file, hash }]`, lock format 4.1+) or under `[metadata.files]` as `"name version"`
 * (format 4.0; `{ url, hash }` entries). Packages from a path, a URL or a VCS (`path`, `url`, `git`… keys) are reported as not
 * mirrorable.
 */
import { normalizeName } from '../../model/names.js';
import { filenameOfUrl, parseMarker } from '../requirement.js';
import { readToml, requireField, sha256Of, str, tables } from './toml-file.js';
export function readPdmLock(path, into) {
    const doc = readToml(path);
    const oldFiles = (doc.metadata?.files ?? {});
    for (const pkg of tables(doc.package)) {
        const name = requireField(pkg, 'name', path);
        const origin = `${path}: ${name}`;
        if (['path', 'url', 'git', 'hg', 'svn', 'bzr'].some((k) => pkg[k] !== undefined)) {
            into.skipped.push(`${origin}: not from an index; not mirrorable`);
            continue;
        }
        const version = requireField(pkg, 'version', path);
        const files = tables(pkg.files ?? oldFiles[`${name} ${version}`])
            .map((f) => {
            const filename = str(f.file) ?? (str(f.url) ? filenameOfUrl(str(f.url)) : null);
            return filename ? { filename, sha256: sha256Of(f.hash) } : null;
        })
            .filter((f) => f !== null);
        const marker = str(pkg.marker);
        into.locked.push({
            name: normalizeName(name),
            version,
            marker: marker ? parseMarker(marker, origin) : undefined,
            files: files.length ? files : null,
            origin: `${origin} ${version}`,
        });
    }
}
