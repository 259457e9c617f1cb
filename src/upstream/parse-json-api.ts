/**
 * Warehouse's JSON API: `/pypi/<p>/json` → ProjectReleases, `/pypi/<p>/<v>/json` → one release.
 * The project document carries metadata (`info`) for one version only, the latest; every other
 * release gets a placeholder from `emptyMetadata` until its own document is fetched.
 */
import { versionFromFilename } from '../model/filenames.js';
import type { ProjectReleases, Release, ReleaseFile, ReleaseMetadata, Vulnerability } from '../model/documents.js';
import { normalizeName, type ProjectName } from '../model/names.js';
import { sortVersions } from '../model/versions.js';
import { isJsonObject, sizeOrNull, stringListOrNull, stringOrNull, type JsonObject } from './json-util.js';
import { ContentLimitError, MAX_JSON_OBJECT_KEYS, MAX_LINKS_PER_PAGE, MAX_VERSIONS_PER_PAGE } from './content-limits.js';
import { JsonSplitter, type JsonPath } from './json-splitter.js';
import { pacedText } from './text-chunks.js';
import { packageTypeOf, pythonVersionOf } from '../model/file-kind.js';
import { coreMetadataOf } from './parse-simple-json.js';
import { chooseSerial, cleanHashes, requiresPythonOf, resolveFileUrl } from './simple-common.js';

export interface JsonApiOptions {
  /** The URL the document was fetched from; relative file URLs resolve against it. */
  pageUrl: string;
  /** `X-PyPI-Last-Serial` of the response, used when the body has no `last_serial`. */
  headerSerial?: number;
}

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
class JsonApiDocumentParser {
  readonly #where: string;
  readonly #options: JsonApiOptions;
  readonly #splitter: JsonSplitter;
  readonly #doc = Object.create(null) as JsonObject;
  #info: JsonObject | null = null;
  #infoKeys = 0;
  /** Files by release as they arrive; a file whose name has no version gets its release's at the end. */
  readonly #releases = new Map<string, ReleaseFile[]>();
  #urls: ReleaseFile[] | null = null;
  #vulnerabilities: Vulnerability[] | null = null;
  #fileCount = 0;

  constructor(options: JsonApiOptions, withReleases: boolean) {
    this.#options = options;
    this.#where = `JSON API document ${options.pageUrl}`;
    this.#splitter = new JsonSplitter(this.#where, {
      plan: (path) => {
        const [top] = path;
        if (path.length === 0) return 'object';
        if (top === 'releases' && !withReleases) return 'skip';
        if (path.length === 1)
          return top === 'info' || top === 'releases'
            ? 'object'
            : DESCENDED_ARRAYS.has(top as string)
              ? 'array'
              : TOP_LEVEL_UNITS.has(top as string)
                ? 'unit'
                : 'skip';
        if (top === 'releases' && path.length === 2) return 'array';
        return path.length === (top === 'releases' ? 3 : 2) ? 'unit' : 'skip';
      },
      open: (path) => this.#open(path),
      value: (path, value) => this.#take(path, value),
    });
  }

  push(text: string): void {
    this.#splitter.push(text);
  }

  /** Ends the input; the document with its `info` checked, and its files given their release's version. */
  finish(): { doc: JsonObject; info: JsonObject; releases: Map<string, ReleaseFile[]> | null; urls: ReleaseFile[]; vulnerabilities: Vulnerability[] } {
    this.#splitter.finish();
    const where = this.#where;
    const info = this.#info;
    if (!info) throw new Error(`${where}: "info" is missing or not an object`);
    if (typeof info.name !== 'string' || info.name === '') throw new Error(`${where}: "info.name" must be a non-empty string`);
    if (typeof info.version !== 'string' || info.version === '') throw new Error(`${where}: "info.version" must be a non-empty string`);
    const urls = this.#urls ?? [];
    for (const file of urls) file.version ??= info.version;
    for (const [version, files] of this.#releases) for (const file of files) file.version ??= version;
    const releases = this.#doc.releases === undefined ? null : this.#releases;
    return { doc: this.#doc, info, releases, urls, vulnerabilities: this.#vulnerabilities ?? [] };
  }

  #open(path: JsonPath): void {
    const [top, version] = path;
    if (top === 'info') this.#info = Object.create(null) as JsonObject;
    else if (top === 'releases' && version === undefined) this.#doc.releases = true;
    else if (top === 'releases') {
      if (!this.#releases.has(version as string) && this.#releases.size >= MAX_VERSIONS_PER_PAGE) {
        throw new ContentLimitError(`${this.#where}: more than ${MAX_VERSIONS_PER_PAGE} releases (larder's limit)`);
      }
      this.#releases.set(version as string, this.#releases.get(version as string) ?? []);
    } else if (top === 'urls') this.#urls = [];
    else if (top === 'vulnerabilities') this.#vulnerabilities = [];
  }

  #take(path: JsonPath, value: unknown): void {
    const where = this.#where;
    const [top, second, third] = path;
    if (top === undefined) throw new Error(`${where}: expected a JSON object`);
    if (top === 'info') {
      if (second === undefined) throw new Error(`${where}: "info" is missing or not an object`);
      this.#infoKeys += 1;
      if (this.#infoKeys > MAX_JSON_OBJECT_KEYS) throw new ContentLimitError(`${where}: "info" has more than ${MAX_JSON_OBJECT_KEYS} keys (larder's limit)`);
      this.#info![second] = value;
    } else if (top === 'releases') {
      if (second === undefined) throw new Error(`${where}: "releases" is not an object`);
      const label = `${where}: releases[${JSON.stringify(second)}]`;
      if (third === undefined) fileList(value, label);
      else this.#releases.get(second as string)!.push(this.#file(value, `${label}[${third}]`));
    } else if (top === 'urls') {
      if (second === undefined) fileList(value, `${where}: urls`);
      else this.#urls!.push(this.#file(value, `${where}: urls[${second}]`));
    } else if (top === 'vulnerabilities') {
      if (second === undefined && value !== null) throw new Error(`${where}: "vulnerabilities" is not an array`);
      if (second !== undefined && isJsonObject(value)) this.#vulnerabilities!.push(vulnerabilityOf(value));
    } else {
      this.#doc[top] = value;
    }
  }

  #file(raw: unknown, where: string): ReleaseFile {
    this.#fileCount += 1;
    if (this.#fileCount > MAX_LINKS_PER_PAGE) throw new ContentLimitError(`${this.#where}: more than ${MAX_LINKS_PER_PAGE} files (larder's limit)`);
    return releaseFile(raw, where, this.#options.pageUrl);
  }
}

const DESCENDED_ARRAYS = new Set(['urls', 'vulnerabilities']);
const TOP_LEVEL_UNITS = new Set(['last_serial', 'ownership']);

function readDocument(text: string, options: JsonApiOptions, withReleases: boolean) {
  const parser = new JsonApiDocumentParser(options, withReleases);
  parser.push(text);
  return parser.finish();
}

async function readDocumentStream(chunks: AsyncIterable<Uint8Array | string>, options: JsonApiOptions, withReleases: boolean) {
  const parser = new JsonApiDocumentParser(options, withReleases);
  for await (const text of pacedText(chunks)) parser.push(text);
  return parser.finish();
}

type ReadDocument = ReturnType<typeof readDocument>;

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

/** A value where a list of files belongs that is not one. */
function fileList(value: unknown, where: string): void {
  if (value !== undefined && !Array.isArray(value)) throw new Error(`${where}: expected an array of files`);
}

/** A file entry; its version is null when its name has none (the caller gives it its release's). */
function releaseFile(raw: unknown, where: string, pageUrl: string): ReleaseFile {
  if (!isJsonObject(raw)) throw new Error(`${where}: expected an object`);
  const { filename, url } = raw;
  if (typeof filename !== 'string' || filename === '') throw new Error(`${where}: "filename" must be a non-empty string`);
  if (typeof url !== 'string') throw new Error(`${where} (${filename}): "url" must be a string`);
  const sourceUrl = resolveFileUrl(url, pageUrl);
  if (sourceUrl === null) throw new Error(`${where} (${filename}): unusable url ${JSON.stringify(url)}`);
  const digests = isJsonObject(raw.digests) ? raw.digests : {};
  const hashes = cleanHashes(Object.entries(digests));
  if (hashes.md5 === undefined) Object.assign(hashes, cleanHashes([['md5', raw.md5_digest]]));
  const yanked = raw.yanked === true;
  return {
    filename,
    version: versionFromFilename(filename),
    sourceUrl,
    hashes,
    requiresPython: requiresPythonOf(raw.requires_python),
    yanked,
    yankedReason: yanked ? stringOrNull(raw.yanked_reason) || null : null,
    coreMetadata: coreMetadataOf(raw['core-metadata']),
    size: sizeOrNull(raw.size),
    uploadTime: uploadTimeOf(raw),
    hasSig: raw.has_sig === true,
    packagetype: typeof raw.packagetype === 'string' ? raw.packagetype : packageTypeOf(filename),
    pythonVersion: typeof raw.python_version === 'string' ? raw.python_version : pythonVersionOf(filename),
    comment: stringOrNull(raw.comment_text),
  };
}

/** `upload_time_iso_8601`, else the zone-less `upload_time` (which is UTC) with a `Z`. */
function uploadTimeOf(raw: JsonObject): string | null {
  if (typeof raw.upload_time_iso_8601 === 'string') return raw.upload_time_iso_8601;
  if (typeof raw.upload_time === 'string') return /[zZ]|[+-]\d\d:?\d\d$/.test(raw.upload_time) ? raw.upload_time : `${raw.upload_time}Z`;
  return null;
}

function projectUrlsOf(value: unknown): Record<string, string> | null {
  if (!isJsonObject(value)) return null;
  const urls: Record<string, string> = {};
  for (const [label, url] of Object.entries(value)) if (typeof url === 'string') urls[label] = url;
  return Object.keys(urls).length > 0 ? urls : null;
}

function vulnerabilityOf(v: JsonObject): Vulnerability {
  return {
    id: String(v.id ?? ''),
    source: String(v.source ?? ''),
    link: String(v.link ?? ''),
    aliases: stringListOrNull(v.aliases) ?? [],
    details: String(v.details ?? ''),
    summary: stringOrNull(v.summary),
    fixed_in: stringListOrNull(v.fixed_in) ?? [],
    withdrawn: stringOrNull(v.withdrawn),
  };
}

function ownershipOf(value: unknown): Pick<ProjectReleases, 'ownership'> {
  if (!isJsonObject(value) || !Array.isArray(value.roles)) return {};
  const roles = value.roles
    .filter(isJsonObject)
    .filter((r) => (r.role === 'Owner' || r.role === 'Maintainer') && typeof r.user === 'string')
    .map((r) => ({ role: r.role as 'Owner' | 'Maintainer', user: r.user as string }));
  return { ownership: { roles, organization: stringOrNull(value.organization) } };
}
