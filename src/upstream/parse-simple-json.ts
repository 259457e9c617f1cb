/** PEP 691 JSON project page (`application/vnd.pypi.simple.v1+json`) → ProjectPage, read as it arrives. */
import { versionFromFilename } from '../model/filenames.js';
import type { FileEntry, Hashes, ProjectPage } from '../model/documents.js';
import { normalizeName } from '../model/names.js';
import {
  checkApiVersion,
  chooseSerial,
  cleanHashes,
  fallbackProjectName,
  projectStatusOf,
  requiresPythonOf,
  resolveFileUrl,
  versionsOfFiles,
  type SimplePageOptions,
} from './simple-common.js';
import { isJsonObject, sizeOrNull, type JsonObject } from './json-util.js';
import { ContentLimitError, MAX_LINKS_PER_PAGE, MAX_VERSIONS_PER_PAGE } from './content-limits.js';
import { JsonSplitter, type JsonPath } from './json-splitter.js';
import { pacedText } from './text-chunks.js';

/** Reads a PEP 691 page piece by piece: each file entry is parsed (and checked) on its own as it arrives. */
export class SimpleJsonPageParser {
  readonly #options: SimplePageOptions;
  readonly #where: string;
  readonly #splitter: JsonSplitter;
  #doc: JsonObject | null = null;
  #sawFiles = false;
  readonly #files: FileEntry[] = [];
  #versions: Set<string> | null = null;

  constructor(options: SimplePageOptions) {
    this.#options = options;
    this.#where = `simple JSON page ${options.pageUrl}`;
    this.#splitter = new JsonSplitter(this.#where, {
      plan: (path) => {
        if (path.length === 0) return 'object';
        if (path.length === 1) return path[0] === 'files' || path[0] === 'versions' ? 'array' : TOP_LEVEL_UNITS.has(path[0] as string) ? 'unit' : 'skip';
        return path.length === 2 && (path[0] === 'files' || path[0] === 'versions') ? 'unit' : 'skip';
      },
      open: (path) => {
        if (path.length === 0) this.#doc = Object.create(null) as JsonObject;
        else if (path[0] === 'files') this.#sawFiles = true;
        else this.#versions = new Set();
      },
      value: (path, value) => this.#take(path, value),
    });
  }

  get heldChars(): number {
    return this.#splitter.heldChars;
  }

  push(text: string): void {
    this.#splitter.push(text);
  }

  page(): ProjectPage {
    this.#splitter.finish();
    const where = this.#where;
    const doc = this.#doc!;
    if (!this.#sawFiles) throw new Error(`${where}: "files" is missing or not an array`);
    const files = this.#files;
    const displayName = typeof doc.name === 'string' && doc.name !== '' ? doc.name : fallbackProjectName(this.#options);
    const status = isJsonObject(doc['project-status']) ? projectStatusOf(doc['project-status'].status, doc['project-status'].reason) : undefined;
    const meta = isJsonObject(doc.meta) ? doc.meta : {};
    return {
      name: normalizeName(displayName),
      displayName,
      serial: chooseSerial(meta['_last-serial'], this.#options.headerSerial),
      files,
      versions: this.#versions ? [...this.#versions] : versionsOfFiles(files),
      ...(status ? { status } : {}),
      origin: 'upstream',
    };
  }

  #take(path: JsonPath, value: unknown): void {
    const where = this.#where;
    const [top, index] = path;
    if (top === undefined) throw new Error(`${where}: expected a JSON object`);
    if (top === 'files') {
      if (index === undefined) throw new Error(`${where}: "files" is missing or not an array`);
      if (this.#files.length >= MAX_LINKS_PER_PAGE) throw new ContentLimitError(`${where}: more than ${MAX_LINKS_PER_PAGE} files (larder's limit)`);
      this.#files.push(parseFile(value, `${where}: files[${index}]`, this.#options.pageUrl));
    } else if (top === 'versions') {
      if (index === undefined) this.#versions = null;
      else if (typeof value === 'string' && this.#versions!.add(value).size > MAX_VERSIONS_PER_PAGE) {
        throw new ContentLimitError(`${where}: more than ${MAX_VERSIONS_PER_PAGE} versions (larder's limit)`);
      }
    } else {
      this.#doc![top] = value;
      if (top === 'meta' && isJsonObject(value)) checkApiVersion(value['api-version'], where);
    }
  }
}

const TOP_LEVEL_UNITS = new Set(['meta', 'name', 'project-status']);

/** The whole page at once (tests, and callers that hold the text). */
export function parseSimpleJson(text: string, options: SimplePageOptions): ProjectPage {
  const parser = new SimpleJsonPageParser(options);
  parser.push(text);
  return parser.page();
}

/** The page from a body that arrives in pieces, with a turn of the event loop between pieces. */
export async function parseSimpleJsonStream(chunks: AsyncIterable<Uint8Array | string>, options: SimplePageOptions): Promise<ProjectPage> {
  const parser = new SimpleJsonPageParser(options);
  for await (const text of pacedText(chunks)) parser.push(text);
  return parser.page();
}

function parseFile(raw: unknown, where: string, pageUrl: string): FileEntry {
  if (!isJsonObject(raw)) throw new Error(`${where}: expected an object, got ${JSON.stringify(raw)?.slice(0, 80)}`);
  const { filename, url } = raw;
  if (typeof filename !== 'string' || filename === '') throw new Error(`${where}: "filename" must be a non-empty string`);
  if (typeof url !== 'string') throw new Error(`${where} (${filename}): "url" must be a string`);
  const sourceUrl = resolveFileUrl(url, pageUrl);
  if (sourceUrl === null) throw new Error(`${where} (${filename}): unusable url ${JSON.stringify(url)}`);
  const yanked = raw.yanked === true || (typeof raw.yanked === 'string' && raw.yanked !== '');
  return {
    filename,
    version: versionFromFilename(filename),
    sourceUrl,
    hashes: isJsonObject(raw.hashes) ? cleanHashes(Object.entries(raw.hashes)) : {},
    requiresPython: requiresPythonOf(raw['requires-python']),
    yanked,
    yankedReason: yanked && typeof raw.yanked === 'string' ? raw.yanked : null,
    coreMetadata: coreMetadataOf(raw['core-metadata'] ?? raw['data-dist-info-metadata'] ?? raw['dist-info-metadata']),
    size: sizeOrNull(raw.size),
    uploadTime: typeof raw['upload-time'] === 'string' ? raw['upload-time'] : null,
    provenance: typeof raw.provenance === 'string' ? raw.provenance : null,
    hasSig: raw['gpg-sig'] === true,
  };
}

/** `true`/`false`, or a dict of hashes; an empty dict still says the file exists. */
export function coreMetadataOf(value: unknown): Hashes | boolean {
  if (value === true) return true;
  if (!isJsonObject(value)) return false;
  const hashes = cleanHashes(Object.entries(value));
  return Object.keys(hashes).length > 0 ? hashes : true;
}
