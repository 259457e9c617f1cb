/**
 * Reads a Warehouse JSON API document as it streams: cut into small units (one file entry, one field of
 * `info`) by the JSON splitter, each checked against the limits in content-limits.ts, nothing kept that
 * larder does not use. parse-json-api.ts turns what it reads into releases.
 */
import { versionFromFilename } from '../model/filenames.js';
import { packageTypeOf, pythonVersionOf } from '../model/file-kind.js';
import type { ReleaseFile, Vulnerability } from '../model/documents.js';
import { ContentLimitError, MAX_JSON_OBJECT_KEYS, MAX_LINKS_PER_PAGE, MAX_VERSIONS_PER_PAGE } from './content-limits.js';
import { JsonSplitter, type JsonPath } from './json-splitter.js';
import { isJsonObject, sizeOrNull, stringListOrNull, stringOrNull, type JsonObject } from './json-util.js';
import { coreMetadataOf } from './parse-simple-json.js';
import { cleanHashes, requiresPythonOf, resolveFileUrl } from './simple-common.js';
import { pacedText } from './text-chunks.js';

export interface JsonApiOptions {
  /** The URL the document was fetched from; relative file URLs resolve against it. */
  pageUrl: string;
  /** `X-PyPI-Last-Serial` of the response, used when the body has no `last_serial`. */
  headerSerial?: number;
}

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

export function readDocument(text: string, options: JsonApiOptions, withReleases: boolean) {
  const parser = new JsonApiDocumentParser(options, withReleases);
  parser.push(text);
  return parser.finish();
}

export async function readDocumentStream(chunks: AsyncIterable<Uint8Array | string>, options: JsonApiOptions, withReleases: boolean) {
  const parser = new JsonApiDocumentParser(options, withReleases);
  for await (const text of pacedText(chunks)) parser.push(text);
  return parser.finish();
}

export type ReadDocument = ReturnType<typeof readDocument>;

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
