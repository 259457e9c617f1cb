/**
 * URLs larder publishes. `base` is the server's root as the reader reaches it: the public base URL without a
 * trailing slash (e.g. `http://host:3142`; a trailing slash is tolerated), or a path relative to the page
 * the URL appears on (`FROM_PROJECT_PAGE`).
 */
import type { FileEntry } from '../model/documents.js';
import { normalizeName } from '../model/names.js';
import { preferredHash } from './hashes.js';

function trimBase(base: string): string {
  return base.replace(/\/+$/, '');
}

function projectSegment(name: string): string {
  return encodeURIComponent(normalizeName(name));
}

/**
 * The server's root as seen from a project page, `/simple/<p>/`: its links `../../packages/<p>/<file>` lead to
 * the same place whatever host and path prefix the client reached the page under (pip, uv, poetry and pdm
 * resolve the links of PEP 503 and PEP 691 pages against the page's URL).
 */
export const FROM_PROJECT_PAGE = '../..';

/** A project's simple page relative to the root page: `<normalized>/` (percent-encoded, so never a scheme nor a dot segment). */
export function projectPageSegment(name: string): string {
  return `${projectSegment(name)}/`;
}

/** Path of a project's simple page, for links relative to the host. */
export function projectPagePath(name: string): string {
  return `/simple/${projectSegment(name)}/`;
}

export function projectPageUrl(base: string, name: string): string {
  return `${trimBase(base)}${projectPagePath(name)}`;
}

/** `<base>/packages/<normalized project>/<filename>`; `+` in a local version becomes `%2B`. */
export function fileUrl(base: string, project: string, filename: string): string {
  return `${trimBase(base)}/packages/${projectSegment(project)}/${encodeURIComponent(filename)}`;
}

/** fileUrl plus `#<hashname>=<hex>` (sha256 when known), or no fragment when no usable hash is known. */
export function fileUrlWithHash(base: string, project: string, file: Pick<FileEntry, 'filename' | 'hashes'>): string {
  const url = fileUrl(base, project, file.filename);
  const hash = preferredHash(file.hashes);
  return hash ? `${url}#${hash.name}=${hash.hex}` : url;
}

/** `package_url` / `project_url` of the JSON API (PyPI: `https://pypi.org/project/<name>/`). */
export function projectUrl(base: string, name: string): string {
  return `${trimBase(base)}/project/${projectSegment(name)}/`;
}

/** `release_url` of the JSON API (PyPI: `https://pypi.org/project/<name>/<version>/`). */
export function releaseUrl(base: string, name: string, version: string): string {
  return `${projectUrl(base, name)}${encodeURIComponent(version)}/`;
}

/** `/pypi/<name>/json` or `/pypi/<name>/<version>/json`. */
export function jsonApiUrl(base: string, name: string, version?: string): string {
  const versionPart = version === undefined ? '' : `${encodeURIComponent(version)}/`;
  return `${trimBase(base)}/pypi/${projectSegment(name)}/${versionPart}json`;
}
