/** Pieces the PEP 691 JSON and PEP 503 HTML project-page parsers share. */
import { sortVersions } from '../model/versions.js';
import type { FileEntry, Hashes, ProjectStatus } from '../model/documents.js';

export interface SimplePageOptions {
  /** The URL the page was fetched from; relative file URLs resolve against it. */
  pageUrl: string;
  /** `X-PyPI-Last-Serial` of the response, used when the body carries no serial. */
  headerSerial?: number;
  /** The name that was requested, used when the page does not name its project. */
  projectName?: string;
}

/** Links with any other scheme (`file:` above all) are dropped: larder fetches nothing else. */
const FILE_PROTOCOLS = new Set(['http:', 'https:']);
const PROJECT_STATUSES = new Set(['active', 'archived', 'quarantined', 'deprecated']);
const HASH_NAME = /^[a-z0-9_]+$/;
const HEX = /^[0-9a-f]+$/;

/** Absolute URL without its fragment, or null when `href` is not a usable file URL. */
export function resolveFileUrl(href: string, base: string): string | null {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return null;
  }
  if (!FILE_PROTOCOLS.has(url.protocol)) return null;
  url.hash = '';
  return url.href;
}

/** The last path segment of a URL, percent-decoded; '' when the path ends in `/`. */
export function filenameFromUrl(url: string): string {
  const path = new URL(url).pathname;
  const last = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** Keeps `name → hex` pairs whose name and value look like a hash, lowercased. */
export function cleanHashes(pairs: Iterable<[string, unknown]>): Hashes {
  const hashes: Hashes = {};
  for (const [rawName, rawValue] of pairs) {
    if (typeof rawValue !== 'string') continue;
    const name = rawName.toLowerCase();
    const value = rawValue.toLowerCase();
    if (HASH_NAME.test(name) && HEX.test(value)) hashes[name] = value;
  }
  return hashes;
}

/** `""`, null and non-strings all mean "no Requires-Python". */
export function requiresPythonOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function projectStatusOf(status: unknown, reason: unknown): ProjectStatus | undefined {
  const out: ProjectStatus = {};
  if (typeof status === 'string' && PROJECT_STATUSES.has(status)) out.status = status as ProjectStatus['status'];
  if (typeof reason === 'string') out.reason = reason;
  return out.status === undefined && out.reason === undefined ? undefined : out;
}

export function isSerial(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The body's serial wins; then the header's; 0 when neither is known. */
export function chooseSerial(bodySerial: unknown, headerSerial: number | undefined): number {
  if (isSerial(bodySerial)) return bodySerial;
  if (isSerial(headerSerial)) return headerSerial;
  return 0;
}

/** The name a page is about when it does not say: the requested one, else the URL's last path segment. */
export function fallbackProjectName(options: SimplePageOptions): string {
  if (options.projectName) return options.projectName;
  const segments = new URL(options.pageUrl).pathname.split('/').filter(Boolean);
  const last = segments.at(-1);
  if (!last) throw new Error(`cannot tell which project ${options.pageUrl} is about`);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** Versions of the files, each once, in PEP 440 order. */
export function versionsOfFiles(files: readonly FileEntry[]): string[] {
  const versions: string[] = [];
  for (const file of files) if (file.version !== null) versions.push(file.version);
  return sortVersions(versions);
}

/** Clients must refuse a major API version they do not know (PEP 629); this parser knows 1. */
export function checkApiVersion(version: unknown, where: string): void {
  if (typeof version !== 'string') return;
  const major = Number.parseInt(version, 10);
  if (Number.isInteger(major) && major > 1) {
    throw new Error(`${where}: unsupported repository API version ${version} (this parser knows 1.x)`);
  }
}

/** `#sha256=<hex>`, possibly several joined by `&`. */
export function fragmentHashes(href: string): Hashes {
  const hashAt = href.indexOf('#');
  if (hashAt < 0) return {};
  const pairs = href
    .slice(hashAt + 1)
    .split('&')
    .map((pair): [string, string] => {
      const eq = pair.indexOf('=');
      return eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    });
  return cleanHashes(pairs);
}

/**
 * pip reads any value other than `true` without a `=` as "exists, hash unknown"; this parser agrees
 * except that it takes `false` at its word.
 */
export function coreMetadataAttr(value: string | undefined): Hashes | boolean {
  if (value === undefined || value.toLowerCase() === 'false') return false;
  const eq = value.indexOf('=');
  if (eq < 0) return true;
  const hashes = cleanHashes([[value.slice(0, eq), value.slice(eq + 1)]]);
  return Object.keys(hashes).length > 0 ? hashes : true;
}
