import { normalizeName } from '../model/names.js';
import { preferredHash } from './hashes.js';
function trimBase(base) {
    return base.replace(/\/+$/, '');
}
function projectSegment(name) {
    return encodeURIComponent(normalizeName(name));
}
/** Path of a project's simple page, for links relative to the host. */
export function projectPagePath(name) {
    return `/simple/${projectSegment(name)}/`;
}
export function projectPageUrl(base, name) {
    return `${trimBase(base)}${projectPagePath(name)}`;
}
/** `<base>/packages/<normalized project>/<filename>`; `+` in a local version becomes `%2B`. */
export function fileUrl(base, project, filename) {
    return `${trimBase(base)}/packages/${projectSegment(project)}/${encodeURIComponent(filename)}`;
}
/** fileUrl plus `#<hashname>=<hex>` (sha256 when known), or no fragment when no usable hash is known. */
export function fileUrlWithHash(base, project, file) {
    const url = fileUrl(base, project, file.filename);
    const hash = preferredHash(file.hashes);
    return hash ? `${url}#${hash.name}=${hash.hex}` : url;
}
/** `package_url` / `project_url` of the JSON API (PyPI: `https://pypi.org/project/<name>/`). */
export function projectUrl(base, name) {
    return `${trimBase(base)}/project/${projectSegment(name)}/`;
}
/** `release_url` of the JSON API (PyPI: `https://pypi.org/project/<name>/<version>/`). */
export function releaseUrl(base, name, version) {
    return `${projectUrl(base, name)}${encodeURIComponent(version)}/`;
}
/** `/pypi/<name>/json` or `/pypi/<name>/<version>/json`. */
export function jsonApiUrl(base, name, version) {
    const versionPart = version === undefined ? '' : `${encodeURIComponent(version)}/`;
    return `${trimBase(base)}/pypi/${projectSegment(name)}/${versionPart}json`;
}
