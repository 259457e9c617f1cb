/**
 * The JSON-API view of a project built from its simple page, for upstreams that have no JSON API.
 * Metadata comes from the caller (parsed `.metadata` files, by version); releases without it get
 * `emptyMetadata`.
 */
import type { FileEntry, ProjectPage, ProjectReleases, Release, ReleaseFile, ReleaseMetadata } from '../model/documents.js';
import { normalizeVersion, VersionSet } from '../model/versions.js';
import { packageTypeOf, pythonVersionOf } from '../model/file-kind.js';
import { emptyMetadata } from './parse-json-api.js';
import { yieldToLoop } from './text-chunks.js';

export { parseCoreMetadata } from './core-metadata.js';

/** Files, or releases, handled between two turns of the event loop by `releasesFromPageInSlices`. */
export const ITEMS_PER_SLICE = 2000;

/**
 * Groups the page's files by version; every version the page lists gets a release, with `[]` when it
 * has no files. Files whose name has no version are left out: no release can hold them.
 */
export function releasesFromPage(page: ProjectPage, metadata: ReadonlyMap<string, ReleaseMetadata> = new Map()): ProjectReleases {
  const steps = buildReleases(page, metadata);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The same, a slice of ITEMS_PER_SLICE files or releases at a time with a turn of the event loop between:
 * a page may list 50,000 versions.
 */
export async function releasesFromPageInSlices(page: ProjectPage, metadata: ReadonlyMap<string, ReleaseMetadata> = new Map()): Promise<ProjectReleases> {
  const steps = buildReleases(page, metadata);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await yieldToLoop();
  }
}

/** releasesFromPage's work, pausing (a `yield`) after each slice. */
function* buildReleases(page: ProjectPage, metadata: ReadonlyMap<string, ReleaseMetadata>): Generator<void, ProjectReleases> {
  const byVersion = new Map<string, ReleaseFile[]>(page.versions.map((version) => [version, []]));
  // A filename may spell a version differently from the page's list (`1.0RC1` vs `1.0rc1`).
  const listed = new Map<string, string>();
  for (let i = 0; i < page.versions.length; i++) {
    const version = page.versions[i]!;
    listed.set(normalizeVersion(version), version);
    if ((i + 1) % ITEMS_PER_SLICE === 0) yield;
  }
  for (let i = 0; i < page.files.length; i++) {
    const file = page.files[i]!;
    if ((i + 1) % ITEMS_PER_SLICE === 0) yield;
    if (file.version === null) continue;
    const version = listed.get(normalizeVersion(file.version)) ?? file.version;
    const files = byVersion.get(version);
    if (files) files.push(releaseFile(file));
    else byVersion.set(version, [releaseFile(file)]);
  }

  const order = new VersionSet();
  let added = 0;
  for (const version of byVersion.keys()) {
    order.add(version);
    if (++added % ITEMS_PER_SLICE === 0) yield;
  }
  const versions = order.sorted();
  yield;
  const releases: Release[] = [];
  for (const version of versions) {
    const files = byVersion.get(version)!;
    const yanked = files.length > 0 && files.every((file) => file.yanked);
    releases.push({
      version,
      metadata: metadataFor(metadata, version) ?? emptyMetadata(page.displayName, version),
      yanked,
      yankedReason: yanked ? (files.find((file) => file.yankedReason)?.yankedReason ?? null) : null,
      files,
    });
    if (releases.length % ITEMS_PER_SLICE === 0) yield;
  }

  return { name: page.name, displayName: page.displayName, serial: page.serial, releases };
}

/** The document with `metadata` in place of the metadata of `version` (and of its other spellings), as releasesFromPage gives it. */
export function withReleaseMetadata(doc: ProjectReleases, version: string, metadata: ReleaseMetadata): ProjectReleases {
  const wanted = normalizeVersion(version);
  const releases = doc.releases.map((release) =>
    release.version === version || normalizeVersion(release.version) === wanted ? { ...release, metadata } : release,
  );
  return { ...doc, releases };
}

function metadataFor(metadata: ReadonlyMap<string, ReleaseMetadata>, version: string): ReleaseMetadata | undefined {
  if (metadata.size === 0) return undefined;
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
