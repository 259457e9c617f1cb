/**
 * PEP 503 HTML project page (`text/html`, `application/vnd.pypi.simple.v1+html`) → ProjectPage, read as it
 * arrives by the streaming HtmlTokenizer. As in pip, the first `<base href>` applies to every link, wherever
 * it stands, so links are kept as found and turned into file entries at the end, a slice at a time.
 */
import { versionFromFilename } from '../model/filenames.js';
import type { FileEntry, ProjectPage } from '../model/documents.js';
import { normalizeName } from '../model/names.js';
import { ContentLimitError, MAX_LINKS_PER_PAGE, MAX_VERSIONS_PER_PAGE } from './content-limits.js';
import { VersionSet } from '../model/versions.js';
import { HtmlTokenizer } from './html-tokenizer.js';
import {
  checkApiVersion,
  chooseSerial,
  coreMetadataAttr,
  fallbackProjectName,
  fragmentHashes,
  filenameFromUrl,
  projectStatusOf,
  requiresPythonOf,
  resolveFileUrl,
  type SimplePageOptions,
} from './simple-common.js';
import { pacedText, yieldToLoop } from './text-chunks.js';

const SERIAL_COMMENT = /^\s*SERIAL\s+(\d+)\s*$/;
const TITLE = /^\s*Links for\s+(.+?)\s*$/i;
/** Links turned into file entries between two turns of the event loop. */
const LINKS_PER_SLICE = 2000;

type Attributes = ReadonlyMap<string, string>;

/** `<meta name=...>` values the page parser reads; only the first element of each name counts. */
const META_NAMES = new Set(['pypi:repository-version', 'pypi:project-status', 'pypi:project-status-reason']);

export class SimpleHtmlPageParser {
  readonly #options: SimplePageOptions;
  readonly #where: string;
  readonly #tokenizer: HtmlTokenizer;
  #baseHref: string | undefined;
  readonly #meta = new Map<string, string | undefined>();
  #title: string | undefined;
  #serial: number | undefined;
  /** Links not yet turned into file entries, and the entries made so far. */
  readonly #links: Attributes[] = [];
  #resolved = 0;
  readonly #files: FileEntry[] = [];
  readonly #versions = new VersionSet();
  #base: string | undefined;

  constructor(options: SimplePageOptions) {
    this.#options = options;
    this.#where = `simple HTML page ${options.pageUrl}`;
    this.#tokenizer = new HtmlTokenizer({
      startTag: (name, attributes) => this.#startTag(name, attributes),
      comment: (text) => {
        const serial = this.#serial === undefined ? SERIAL_COMMENT.exec(text) : null;
        if (serial) this.#serial = Number(serial[1]);
      },
      title: (text) => {
        this.#title ??= text;
      },
    });
  }

  /** Characters held for an unfinished tag (for tests of the bounds). */
  get heldChars(): number {
    return this.#tokenizer.heldChars;
  }

  push(text: string): void {
    this.#named(() => this.#tokenizer.push(text));
  }

  /** Ends the input. */
  end(): void {
    this.#named(() => this.#tokenizer.finish());
    const href = this.#baseHref;
    this.#base = (href !== undefined && resolveFileUrl(href, this.#options.pageUrl)) || this.#options.pageUrl;
  }

  /** Turns up to `limit` links into file entries (after end()); returns how many are left. */
  resolveLinks(limit: number): number {
    const base = this.#base;
    if (base === undefined) throw new Error('resolveLinks() before end()');
    const links = this.#links;
    const stop = Math.min(links.length, this.#resolved + limit);
    for (let i = this.#resolved; i < stop; i++) {
      const file = fileFromAnchor(links[i]!, base);
      if (!file) continue;
      this.#files.push(file);
      if (file.version !== null && this.#versions.add(file.version).size > MAX_VERSIONS_PER_PAGE) {
        throw new ContentLimitError(`${this.#where}: more than ${MAX_VERSIONS_PER_PAGE} versions (larder's limit)`);
      }
    }
    const left = links.length - stop;
    this.#resolved = left === 0 ? 0 : stop;
    if (left === 0) links.length = 0; // the attributes are no longer needed
    return left;
  }

  /** The page, once every link is resolved. */
  page(): ProjectPage {
    if (this.#base === undefined || this.#resolved < this.#links.length) throw new Error('page() before every link is resolved');
    const files = this.#files;
    const title = TITLE.exec(this.#title ?? '');
    const displayName = title ? title[1]! : fallbackProjectName(this.#options);
    const status = projectStatusOf(this.#meta.get('pypi:project-status'), this.#meta.get('pypi:project-status-reason'));
    return {
      name: normalizeName(displayName),
      displayName,
      serial: chooseSerial(this.#serial, this.#options.headerSerial),
      files,
      versions: this.#versions.sorted(),
      ...(status ? { status } : {}),
      origin: 'upstream',
    };
  }

  #startTag(name: string, attributes: Attributes): void {
    if (name === 'a') {
      if (!attributes.has('href')) return;
      if (this.#links.length >= MAX_LINKS_PER_PAGE) throw new ContentLimitError(`more than ${MAX_LINKS_PER_PAGE} links (larder's limit)`);
      this.#links.push(attributes);
    } else if (name === 'base') {
      if (this.#baseHref === undefined && attributes.has('href')) this.#baseHref = attributes.get('href');
    } else if (name === 'meta') {
      const metaName = attributes.get('name');
      if (metaName === undefined || !META_NAMES.has(metaName) || this.#meta.has(metaName)) return;
      this.#meta.set(metaName, attributes.get('content'));
      if (metaName === 'pypi:repository-version') checkApiVersion(attributes.get('content'), this.#where);
    }
  }

  /** Errors of the tokenizer name the page; the API-version check names it already. */
  #named(step: () => void): void {
    try {
      step();
    } catch (err) {
      if (err instanceof ContentLimitError) throw new ContentLimitError(`${this.#where}: ${err.message}`);
      throw err;
    }
  }
}

/** The whole page at once (tests, and callers that hold the text). */
export function parseSimpleHtml(text: string, options: SimplePageOptions): ProjectPage {
  const parser = new SimpleHtmlPageParser(options);
  parser.push(text);
  parser.end();
  parser.resolveLinks(Number.POSITIVE_INFINITY);
  return parser.page();
}

/** The page from a body that arrives in pieces, with a turn of the event loop between pieces and slices. */
export async function parseSimpleHtmlStream(chunks: AsyncIterable<Uint8Array | string>, options: SimplePageOptions): Promise<ProjectPage> {
  const parser = new SimpleHtmlPageParser(options);
  for await (const text of pacedText(chunks)) parser.push(text);
  parser.end();
  while (parser.resolveLinks(LINKS_PER_SLICE) > 0) await yieldToLoop();
  return parser.page();
}

/** A file entry for a link to a file; null for links that do not name one (`../`, `mailto:`, ...). */
function fileFromAnchor(attrs: Attributes, base: string): FileEntry | null {
  const href = attrs.get('href')!;
  const sourceUrl = resolveFileUrl(href, base);
  if (sourceUrl === null) return null;
  const filename = filenameFromUrl(sourceUrl);
  if (filename === '') return null;
  const yanked = attrs.get('data-yanked');
  return {
    filename,
    version: versionFromFilename(filename),
    sourceUrl,
    hashes: fragmentHashes(href),
    requiresPython: requiresPythonOf(attrs.get('data-requires-python')),
    yanked: yanked !== undefined,
    yankedReason: yanked ? yanked : null,
    coreMetadata: coreMetadataAttr(attrs.get('data-core-metadata') ?? attrs.get('data-dist-info-metadata')),
    size: null,
    uploadTime: null,
    provenance: attrs.get('data-provenance') || null,
    hasSig: attrs.get('data-gpg-sig') === 'true',
  };
}
