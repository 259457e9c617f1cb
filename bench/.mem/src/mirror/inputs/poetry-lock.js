/**
 * `poetry.lock`: `[[package]]` with `name`, `version`, optional `markers`, and its files with hashes,
 * either in the package (`files = [{ file, hash }]`, lock format 2) or under `[metadata.files]` (format 1).
 * Packages whose `source` is a directory, file, URL or git repository are reported as not mirrorable.
 */
import { normalizeName } from '../../model/names.js';
import { parseMarker } from '../requirement.js';
import { readToml, requireField, sha256Of, str, tables } from './toml-file.js';
const files = (list) => tables(list)
    .map((f) => ({ filename: str(f.file) ?? '', sha256: sha256Of(f.hash) }))
    .filter((f) => f.filename !== '');
export function readPoetryLock(path, into) {
    const doc = readToml(path);
    const oldFiles = (doc.metadata?.files ?? {});
    for (const pkg of tables(doc.package)) {
        const name = requireField(pkg, 'name', path);
        const version = requireField(pkg, 'version', path);
        const origin = `${path}: ${name} ${version}`;
        const sourceType = str(pkg.source?.type);
        if (sourceType && sourceType !== 'legacy') {
            into.skipped.push(`${origin}: from a ${sourceType} source, not an index; not mirrorable`);
            continue;
        }
        const listed = pkg.files !== undefined ? files(pkg.files) : files(oldFiles[name]);
        const markers = str(pkg.markers);
        into.locked.push({
            name: normalizeName(name),
            version,
            marker: markers ? parseMarker(markers, origin) : undefined,
            files: listed.length ? listed : null,
            origin,
        });
    }
}
