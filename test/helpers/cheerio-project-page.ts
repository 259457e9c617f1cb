/** The cheerio-based project-page parser larder used before the streaming one: the reference for parity tests. */
import { load } from 'cheerio';
import { versionFromFilename } from '../../src/model/filenames.js';
import type { FileEntry, ProjectPage } from '../../src/model/documents.js';
import { normalizeName } from '../../src/model/names.js';
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
  versionsOfFiles,
  type SimplePageOptions,
} from '../../src/upstream/simple-common.js';

const SERIAL_COMMENT = /<!--\s*SERIAL\s+(\d+)\s*-->/;
const TITLE = /^\s*Links for\s+(.+?)\s*$/i;

type Attributes = Record<string, string | undefined>;

export function parseSimpleHtmlWithCheerio(text: string, options: SimplePageOptions): ProjectPage {
  const where = `simple HTML page ${options.pageUrl}`;
  const $ = load(text);
  checkApiVersion($('meta[name="pypi:repository-version"]').attr('content'), where);

  // Like pip: the first <base href> wins, and it applies to every link on the page.
  const baseHref = $('base[href]').first().attr('href');
  const base = (baseHref !== undefined && resolveFileUrl(baseHref, options.pageUrl)) || options.pageUrl;

  const files: FileEntry[] = [];
  $('a[href]').each((_, el) => {
    const file = fileFromAnchor(el.attribs, base);
    if (file) files.push(file);
  });

  const title = TITLE.exec($('title').first().text());
  const displayName = title ? title[1]! : fallbackProjectName(options);
  const status = projectStatusOf($('meta[name="pypi:project-status"]').attr('content'), $('meta[name="pypi:project-status-reason"]').attr('content'));
  const serialComment = SERIAL_COMMENT.exec(text);

  return {
    name: normalizeName(displayName),
    displayName,
    serial: chooseSerial(serialComment ? Number(serialComment[1]) : undefined, options.headerSerial),
    files,
    versions: versionsOfFiles(files),
    ...(status ? { status } : {}),
    origin: 'upstream',
  };
}

/** A file entry for a link to a file; null for links that do not name one (`../`, `mailto:`, ...). */
function fileFromAnchor(attrs: Attributes, base: string): FileEntry | null {
  const href = attrs.href!;
  const sourceUrl = resolveFileUrl(href, base);
  if (sourceUrl === null) return null;
  const filename = filenameFromUrl(sourceUrl);
  if (filename === '') return null;
  const yanked = attrs['data-yanked'];
  return {
    filename,
    version: versionFromFilename(filename),
    sourceUrl,
    hashes: fragmentHashes(href),
    requiresPython: requiresPythonOf(attrs['data-requires-python']),
    yanked: yanked !== undefined,
    yankedReason: yanked ? yanked : null,
    coreMetadata: coreMetadataAttr(attrs['data-core-metadata'] ?? attrs['data-dist-info-metadata']),
    size: null,
    uploadTime: null,
    provenance: attrs['data-provenance'] || null,
    hasSig: attrs['data-gpg-sig'] === 'true',
  };
}
