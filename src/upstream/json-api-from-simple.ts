/**
 * The JSON-API view of a project built from its simple page, for upstreams that have no JSON API.
 * Metadata comes from the caller (parsed `.metadata` files, by version); releases without it get
 * `emptyMetadata`.
 */
import type { FileEntry, ProjectPage, ProjectReleases, Release, ReleaseFile, ReleaseMetadata } from '../model/documents.js';
import { normalizeVersion, sortVersions } from '../model/versions.js';
import { packageTypeOf, pythonVersionOf } from '../model/file-kind.js';
import { emptyMetadata } from './parse-json-api.js';

export { parseCoreMetadata } from './core-metadata.js';

/**
 * Groups the page's files by version; every version the page lists gets a release, with `[]` when it
 * has no files. Files whose name has no version are left out: no release can hold them.
 */
export function releasesFromPage(page: ProjectPage, metadata: ReadonlyMap<string, ReleaseMetadata> = new Map()): ProjectReleases {
  const byVersion = new Map<string, ReleaseFile[]>(page.versions.map((version) => [version, []]));
  // A filename may spell a version differently from the page's list (`1.0RC1` vs `1.0rc1`).
  const listed = new Map(page.versions.map((version) => [normalizeVersion(version), version]));
  for (const file of page.files) {
    if (file.version === null) continue;
    const version = listed.get(normalizeVersion(file.version)) ?? file.version;
    const files = byVersion.get(version);
    if (files) files.push(releaseFile(file));
    else byVersion.set(version, [releaseFile(file)]);
  }

  const releases: Release[] = sortVersions(byVersion.keys()).map((version) => {
    const files = byVersion.get(version)!;
    const yanked = files.length > 0 && files.every((file) => file.yanked);
    return {
      version,
      metadata: metadataFor(metadata, version) ?? emptyMetadata(page.displayName, version),
      yanked,
      yankedReason: yanked ? (files.find((file) => file.yankedReason)?.yankedReason ?? null) : null,
      files,
    };
  });

  return { name: page.name, displayName: page.displayName, serial: page.serial, releases };
}

function metadataFor(metadata: ReadonlyMap<string, ReleaseMetadata>, version: string): ReleaseMetadata | undefined {
  const exact = metadata.get(version);
  if (exact) return exact;
  const wanted = normalizeVersion(version);
  for (const [key, value] of metadata) if (normalizeVersion(key) === wanted) return value;
  return undefined;
}

function releaseFile(file: FileEntry): ReleaseFile {
  return {
    ...file,
    packagetype: packageTypeOf(file.filename),
    pythonVersion: pythonVersionOf(file.filename),
    comment: null,
  };
}
