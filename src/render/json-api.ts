/**
 * Warehouse's JSON API: `/pypi/<p>/json` and `/pypi/<p>/<v>/json` (docs/index-api.md, "The JSON API").
 *
 * Where larder's service interface and pypi.org differ, the interface wins:
 *
 * | field                                   | pypi.org                          | larder (service interface)         |
 * |-----------------------------------------|-----------------------------------|------------------------------------|
 * | info.author, author_email, download_url,| string or null                    | string, "" when none ("may be      |
 * |   home_page, keywords, license,         |                                   |   empty")                          |
 * |   platform, summary                     |                                   |                                    |
 * | info.bugtrack_url                       | always null                       | always "" (typed string)           |
 * | info.project_urls                       | object, or null when none; in     | object, {} when none;              |
 * |                                         |   both documents                  |   only in the project document     |
 * | releases                                | project document only             | both documents ("releases          |
 * |                                         |                                   |   still lists all releases")       |
 * | file comment_text                       | string or null                    | string, "" when none               |
 * | file has_sig                            | always false                      | whether a signature exists         |
 *
 * Fields the service interface does not list follow pypi.org: `dynamic`, `license_files`, `provides_extra`
 * are a list or null (never []), `license_expression` is a string or null, `docs_url` is null,
 * `requires_dist` is a list or null, `yanked_reason` is null rather than "", file dicts carry `core-metadata`
 * (false or a hash dict), and `ownership` appears when the source knows it.
 *
 * What larder cannot know (an upstream that gives no JSON API and no size or digest on its pages, a file
 * not yet cached) is null: `size`, a digest in `digests`, `md5_digest`, both `upload_time` fields — never
 * a made-up 0 or "" (pypi.org never sends an empty digest). docs/json-api.md lists what is filled from where.
 */
import type { ProjectReleases, Release, ReleaseFile } from '../model/documents.js';
import { compareCodePoints, fillBase, inWireOrder, toCompactJson, UrlUnderBase } from './json-wire.js';
import { latestRelease, findRelease } from '../model/release-choice.js';
import { coreMetadata } from './simple-fields.js';
import { isoUploadTime, naiveUploadTime } from './timestamps.js';
import { fileUrl, projectUrl, releaseUrl } from './urls.js';

const NO_DOWNLOADS = { last_day: -1, last_month: -1, last_week: -1 };

/**
 * A piece of a document from the `…Pieces` renderers ends after the release that takes it to PIECE_CHARS
 * characters, or to RELEASES_PER_PIECE releases (pieces stay small enough for V8's young generation).
 */
export const PIECE_CHARS = 64 * 1024;
export const RELEASES_PER_PIECE = 500;

/** The project document, describing the latest release; null when the project has no releases (404). */
export function renderProjectJson(doc: ProjectReleases, base: string): string | null {
  const template = renderProjectJsonTemplate(doc);
  return template && fillBase(template, base);
}

/** The document of one release, found by exact or canonical version; null when none matches (404). */
export function renderReleaseJson(doc: ProjectReleases, version: string, base: string): string | null {
  const template = renderReleaseJsonTemplate(doc, version);
  return template && fillBase(template, base);
}

/**
 * The project document with its absolute URLs left open for `fillBase`: one rendering for every base
 * (the JSON API fills in the request's Host when LARDER_PUBLIC_URL is not set).
 */
export function renderProjectJsonTemplate(doc: ProjectReleases): string | null {
  const pieces = projectJsonTemplatePieces(doc);
  return pieces && [...pieces].join('');
}

/** The release document, likewise. */
export function renderReleaseJsonTemplate(doc: ProjectReleases, version: string): string | null {
  const pieces = releaseJsonTemplatePieces(doc, version);
  return pieces && [...pieces].join('');
}

/**
 * renderProjectJsonTemplate in pieces, each made when asked for and bounded by PIECE_CHARS and
 * RELEASES_PER_PIECE: a document may list 50,000 releases.
 */
export function projectJsonTemplatePieces(doc: ProjectReleases): Iterable<string> | null {
  const release = latestRelease(doc.releases);
  return release && documentPieces(doc, release, true);
}

/** renderReleaseJsonTemplate in pieces, likewise. */
export function releaseJsonTemplatePieces(doc: ProjectReleases, version: string): Iterable<string> | null {
  const release = findRelease(doc.releases, version);
  return release && documentPieces(doc, release, false);
}

/** `<base><path>`, the base filled in later. */
const underBase = (url: string) => new UrlUnderBase(url);

/**
 * toWireJson of the whole document, written around its `releases`: the keys before it (`info`,
 * `last_serial`, `ownership`), the releases in key order a slice at a time, then `urls` and `vulnerabilities`.
 */
function* documentPieces(doc: ProjectReleases, release: Release, isProjectDoc: boolean): Generator<string> {
  const before = toCompactJson({
    info: infoJson(doc, release, isProjectDoc),
    last_serial: doc.serial,
    ownership: doc.ownership && {
      roles: [...doc.ownership.roles].sort((a, b) => Number(a.role !== 'Owner') - Number(b.role !== 'Owner') || compareCodePoints(a.user, b.user)),
      organization: doc.ownership.organization,
    },
  });
  const after = toCompactJson({ urls: filesJson(doc, release), vulnerabilities: doc.vulnerabilities?.[release.version] ?? [] });
  // As in an object: a version listed twice keeps its last release.
  const byVersion = new Map(doc.releases.map((each) => [each.version, each]));
  const versions = inWireOrder([...byVersion.keys()]);
  yield `${before.slice(0, -1)},"releases":{`;
  let piece: string[] = [];
  let chars = 0;
  for (const [i, version] of versions.entries()) {
    const entry = `${i === 0 ? '' : ','}${JSON.stringify(version)}:${toCompactJson(filesJson(doc, byVersion.get(version)!))}`;
    piece.push(entry);
    chars += entry.length;
    if (chars >= PIECE_CHARS || piece.length >= RELEASES_PER_PIECE) {
      yield piece.join('');
      piece = [];
      chars = 0;
    }
  }
  yield `${piece.join('')}},${after.slice(1)}\n`;
}

function infoJson(doc: ProjectReleases, release: Release, isProjectDoc: boolean): Record<string, unknown> {
  const meta = release.metadata;
  const info: Record<string, unknown> = {
    author: meta.author ?? '',
    author_email: meta.author_email ?? '',
    bugtrack_url: '',
    classifiers: meta.classifiers ?? [],
    description: meta.description ?? '',
    description_content_type: meta.description_content_type || null,
    docs_url: null,
    download_url: meta.download_url ?? '',
    downloads: NO_DOWNLOADS,
    dynamic: listOrNull(meta.dynamic),
    home_page: meta.home_page ?? '',
    keywords: meta.keywords ?? '',
    license: meta.license ?? '',
    license_expression: meta.license_expression || null,
    license_files: listOrNull(meta.license_files),
    maintainer: meta.maintainer,
    maintainer_email: meta.maintainer_email,
    name: doc.displayName,
    package_url: underBase(projectUrl('', doc.name)),
    platform: meta.platform ?? '',
    project_url: underBase(projectUrl('', doc.name)),
    provides_extra: listOrNull(meta.provides_extra),
    release_url: underBase(releaseUrl('', doc.name, release.version)),
    requires_dist: listOrNull(meta.requires_dist),
    requires_python: meta.requires_python || null,
    summary: meta.summary ?? '',
    version: release.version,
    yanked: release.yanked,
    yanked_reason: release.yanked ? release.yankedReason || null : null,
  };
  if (isProjectDoc) info.project_urls = meta.project_urls ?? {};
  return info;
}

function listOrNull<T>(list: T[] | null | undefined): T[] | null {
  return list && list.length > 0 ? list : null;
}

function filesJson(doc: ProjectReleases, release: Release): unknown[] {
  return [...release.files].sort((a, b) => compareCodePoints(a.filename, b.filename)).map((file) => fileJson(doc, release, file));
}

function fileJson(doc: ProjectReleases, release: Release, file: ReleaseFile): Record<string, unknown> {
  const yanked = release.yanked || file.yanked;
  const md5 = file.hashes.md5 ?? null;
  return {
    comment_text: file.comment ?? '',
    'core-metadata': coreMetadata(file),
    digests: { blake2b_256: file.hashes.blake2b_256 ?? null, md5, sha256: file.hashes.sha256 ?? null },
    downloads: -1,
    filename: file.filename,
    has_sig: file.hasSig,
    md5_digest: md5,
    packagetype: file.packagetype,
    python_version: file.pythonVersion,
    requires_python: file.requiresPython || null,
    size: file.size ?? null,
    upload_time: naiveUploadTime(file.uploadTime),
    upload_time_iso_8601: isoUploadTime(file.uploadTime),
    url: underBase(fileUrl('', doc.name, file.filename)),
    yanked,
    yanked_reason: yanked ? file.yankedReason || release.yankedReason || null : null,
  };
}
