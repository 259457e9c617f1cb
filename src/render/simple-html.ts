/** PEP 503 HTML pages (with the PEP 592/629/658/714/740/792 attributes; frozen by PEP 833). */
import { listBatches, type FileEntry, type ProjectListInput, type ProjectPage } from '../model/documents.js';
import { API_VERSION, pageApiVersion } from './api-version.js';
import { escapeHtml } from './html-escape.js';
import { preferredHash } from './hashes.js';
import { coreMetadata, projectStatus, requiresPython, sortedFiles, yankedReason } from './simple-fields.js';
import { fileUrlWithHash, projectPagePath, projectPageSegment } from './urls.js';

/** Anchors per chunk of the streamed root page. */
const ROOT_BATCH = 1000;

function head(title: string, apiVersion: string, extraMeta: string[]): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '  <head>',
    '    <meta charset="utf-8">',
    `    <meta name="pypi:repository-version" content="${apiVersion}">`,
    ...extraMeta.map((meta) => `    ${meta}`),
    `    <title>${escapeHtml(title)}</title>`,
    '  </head>',
    '  <body>',
    '',
  ].join('\n');
}

const TAIL = '  </body>\n</html>\n';

export function renderProjectHtml(page: ProjectPage, base: string): string {
  return [...projectHtmlPieces(page, base)].join('');
}

/** renderProjectHtml in pieces: the head, the anchors `perPiece` at a time, the tail. */
export function* projectHtmlPieces(page: ProjectPage, base: string, perPiece = Infinity): Generator<string> {
  const status = projectStatus(page);
  const meta = [`<meta name="pypi:project-status" content="${escapeHtml(status.status)}">`];
  if (status.reason) meta.push(`<meta name="pypi:project-status-reason" content="${escapeHtml(status.reason)}">`);
  const title = `Links for ${page.name}`;
  yield `${head(title, pageApiVersion(page), meta)}    <h1>${escapeHtml(title)}</h1>\n`;
  const files = sortedFiles(page.files);
  for (let from = 0; from < files.length; from += perPiece) {
    yield files
      .slice(from, from + perPiece)
      .map((file) => `    ${fileAnchor(page, file, base)}<br />\n`)
      .join('');
  }
  yield `${TAIL}<!--SERIAL ${page.serial}-->\n`;
}

function fileAnchor(page: ProjectPage, file: FileEntry, base: string): string {
  const attributes = [`href="${escapeHtml(fileUrlWithHash(base, page.name, file))}"`];
  const python = requiresPython(file);
  if (python !== null) attributes.push(`data-requires-python="${escapeHtml(python)}"`);
  const yanked = yankedReason(file);
  if (yanked !== null) attributes.push(`data-yanked="${escapeHtml(yanked)}"`);
  const metadata = coreMetadataAttribute(file);
  if (metadata !== null) {
    attributes.push(`data-dist-info-metadata="${escapeHtml(metadata)}"`, `data-core-metadata="${escapeHtml(metadata)}"`);
  }
  if (file.provenance) attributes.push(`data-provenance="${escapeHtml(file.provenance)}"`);
  return `<a ${attributes.join(' ')}>${escapeHtml(file.filename)}</a>`;
}

/** `<hashname>=<hex>`, `true` when no hash is known, null when there is no `.metadata` (never "false"). */
function coreMetadataAttribute(file: FileEntry): string | null {
  const metadata = coreMetadata(file);
  if (metadata === false) return null;
  if (metadata === true) return 'true';
  const hash = preferredHash(metadata);
  return hash ? `${hash.name}=${hash.hex}` : 'true';
}

/**
 * The root page in pieces: the head, the anchors in batches, the tail. Links are `<normalized>/`, relative to
 * the page, or `<base>/simple/<normalized>/` when a base is given (`''`: relative to the host, as on pypi.org).
 */
export async function* renderRootHtmlChunks(entries: ProjectListInput, base?: string): AsyncIterable<string> {
  yield head('Simple Index', API_VERSION, []);
  const prefix = base === undefined ? null : base.replace(/\/+$/, '');
  let batch: string[] = [];
  for await (const list of listBatches(entries)) {
    for (const entry of list) {
      const normalized = entry.normalized ?? entry.name;
      const href = prefix === null ? projectPageSegment(normalized) : `${prefix}${projectPagePath(normalized)}`;
      batch.push(`    <a href="${escapeHtml(href)}">${escapeHtml(entry.name)}</a>\n`);
    }
    if (batch.length >= ROOT_BATCH) {
      yield batch.join('');
      batch = [];
    }
  }
  if (batch.length > 0) yield batch.join('');
  yield TAIL;
}

export async function renderRootHtml(entries: ProjectListInput, base?: string): Promise<string> {
  let html = '';
  for await (const chunk of renderRootHtmlChunks(entries, base)) html += chunk;
  return html;
}
