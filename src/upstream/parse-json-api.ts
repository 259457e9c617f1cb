/**
 * Warehouse's JSON API: `/pypi/<p>/json` → ProjectReleases, `/pypi/<p>/<v>/json` → one release.
 * The project document carries metadata (`info`) for one version only, the latest; every other
 * release gets a placeholder from `emptyMetadata` until its own document is fetched.
 */
import type { ProjectReleases, Release, ReleaseFile, ReleaseMetadata, Vulnerability } from '../model/documents.js';
import { normalizeName, type ProjectName } from '../model/names.js';
import { sortVersions } from '../model/versions.js';
import { isJsonObject, stringListOrNull, stringOrNull, type JsonObject } from './json-util.js';
import { readDocument, readDocumentStream, type JsonApiOptions, type ReadDocument } from './json-api-reader.js';
import { chooseSerial, requiresPythonOf } from './simple-common.js';

export type { JsonApiOptions } from './json-api-reader.js';

/** What `/pypi/<p>/<v>/json` says about one release. */
export interface ReleaseDocument {
  name: ProjectName;
  displayName: string;
  serial: number;
  /** Metadata from `info`, yanked state from `info.yanked`, files from `urls`. */
  release: Release;
  vulnerabilities: Vulnerability[];
}

/** Metadata of a release whose core metadata is not known: name and version, everything else empty. */
export function emptyMetadata(name: string, version: string): ReleaseMetadata {
  return {
    name,
    version,
    summary: null,
    description: null,
    description_content_type: null,
    author: null,
    author_email: null,
    maintainer: null,
    maintainer_email: null,
    license: null,
    license_expression: null,
    license_files: null,
    keywords: null,
    home_page: null,
    download_url: null,
    platform: null,
    requires_python: null,
    requires_dist: null,
    provides_extra: null,
    dynamic: null,
    classifiers: [],
    project_urls: null,
  };
}

/**
 * True for `emptyMetadata`'s placeholder: a release whose `info` this document did not carry.
 * (Warehouse's `info.description` is never null, so real upstream metadata never looks like this.)
 */
export function isPlaceholderMetadata(metadata: ReleaseMetadata): boolean {
  const always = new Set(['name', 'version', 'classifiers']);
  return metadata.classifiers.length === 0 && Object.entries(metadata).every(([field, value]) => always.has(field) || value === null);
}

/**
 * Reads a JSON API document piece by piece: `info` field by field, each file entry and vulnerability on
 * its own as it arrives; other values are skipped unread.
 */
export function parseJsonApi(text: string, options: JsonApiOptions): ProjectReleases {
  return projectFrom(readDocument(text, options, true), options);
}

/** parseJsonApi for a body that arrives in pieces, with a turn of the event loop between pieces. */
export async function parseJsonApiStream(chunks: AsyncIterable<Uint8Array | string>, options: JsonApiOptions): Promise<ProjectReleases> {
  return projectFrom(await readDocumentStream(chunks, options, true), options);
}

export function parseReleaseJson(text: string, options: JsonApiOptions): ReleaseDocument {
  return releaseFrom(readDocument(text, options, false), options);
}

/** parseReleaseJson for a body that arrives in pieces, with a turn of the event loop between pieces. */
export async function parseReleaseJsonStream(chunks: AsyncIterable<Uint8Array | string>, options: JsonApiOptions): Promise<ReleaseDocument> {
  return releaseFrom(await readDocumentStream(chunks, options, false), options);
}

function projectFrom({ doc, info, releases, urls, vulnerabilities }: ReadDocument, options: JsonApiOptions): ProjectReleases {
  const displayName = info.name as string;
  const infoVersion = info.version as string;
  const byVersion = new Map(releases ?? []);
  if (!byVersion.has(infoVersion)) byVersion.set(infoVersion, urls);
  const all: Release[] = sortVersions(byVersion.keys()).map((version) => {
    const files = byVersion.get(version)!;
    if (version === infoVersion) return releaseFromInfo(info, files);
    return { version, metadata: emptyMetadata(displayName, version), ...yankedFromFiles(files), files };
  });
  return {
    name: normalizeName(displayName),
    displayName,
    serial: chooseSerial(doc.last_serial, options.headerSerial),
    releases: all,
    vulnerabilities: { [infoVersion]: vulnerabilities },
    ...ownershipOf(doc.ownership),
  };
}

function releaseFrom({ doc, info, urls, vulnerabilities }: ReadDocument, options: JsonApiOptions): ReleaseDocument {
  const displayName = info.name as string;
  return {
    name: normalizeName(displayName),
    displayName,
    serial: chooseSerial(doc.last_serial, options.headerSerial),
    release: releaseFromInfo(info, urls),
    vulnerabilities,
  };
}

/** Metadata of the version `info` describes, as the JSON API names it. */
export function metadataFromInfo(info: JsonObject): ReleaseMetadata {
  return {
    name: String(info.name),
    version: String(info.version),
    summary: stringOrNull(info.summary),
    description: stringOrNull(info.description),
    description_content_type: stringOrNull(info.description_content_type),
    author: stringOrNull(info.author),
    author_email: stringOrNull(info.author_email),
    maintainer: stringOrNull(info.maintainer),
    maintainer_email: stringOrNull(info.maintainer_email),
    license: stringOrNull(info.license),
    license_expression: stringOrNull(info.license_expression),
    license_files: stringListOrNull(info.license_files),
    keywords: stringOrNull(info.keywords),
    home_page: stringOrNull(info.home_page),
    download_url: stringOrNull(info.download_url),
    platform: stringOrNull(info.platform),
    requires_python: requiresPythonOf(info.requires_python),
    requires_dist: stringListOrNull(info.requires_dist),
    provides_extra: stringListOrNull(info.provides_extra),
    dynamic: stringListOrNull(info.dynamic),
    classifiers: stringListOrNull(info.classifiers) ?? [],
    project_urls: projectUrlsOf(info.project_urls),
  };
}

function releaseFromInfo(info: JsonObject, files: ReleaseFile[]): Release {
  const yanked = info.yanked === true;
  return {
    version: info.version as string,
    metadata: metadataFromInfo(info),
    yanked,
    yankedReason: yanked ? stringOrNull(info.yanked_reason) || null : null,
    files,
  };
}

/** PyPI yanks whole releases, so a release is yanked when all its files are. */
function yankedFromFiles(files: readonly ReleaseFile[]): Pick<Release, 'yanked' | 'yankedReason'> {
  const yanked = files.length > 0 && files.every((file) => file.yanked);
  return { yanked, yankedReason: yanked ? (files.find((file) => file.yankedReason)?.yankedReason ?? null) : null };
}

function projectUrlsOf(value: unknown): Record<string, string> | null {
  if (!isJsonObject(value)) return null;
  const urls: Record<string, string> = {};
  for (const [label, url] of Object.entries(value)) if (typeof url === 'string') urls[label] = url;
  return Object.keys(urls).length > 0 ? urls : null;
}

function ownershipOf(value: unknown): Pick<ProjectReleases, 'ownership'> {
  if (!isJsonObject(value) || !Array.isArray(value.roles)) return {};
  const roles = value.roles
    .filter(isJsonObject)
    .filter((r) => (r.role === 'Owner' || r.role === 'Maintainer') && typeof r.user === 'string')
    .map((r) => ({ role: r.role as 'Owner' | 'Maintainer', user: r.user as string }));
  return { ownership: { roles, organization: stringOrNull(value.organization) } };
}
