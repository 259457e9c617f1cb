/**
 * PEP 691 JSON pages (with the PEP 700/714/740/792 keys).
 *
 * A file whose size the model does not know (an upstream HTML page without sizes) gets no `size` key,
 * and the page (in both forms) then says api-version API_VERSION_WITHOUT_SIZE: 1.1 makes `size` required, and a made-up
 * 0 would be a wrong value that clients (uv) read. Every other key is the same at either version.
 */
import { listBatches, type FileEntry, type ProjectListInput, type ProjectPage } from '../model/documents.js';
import { API_VERSION, pageApiVersion } from './api-version.js';
import { indexHashes } from './hashes.js';
import { toCompactJson } from './json-wire.js';
import { coreMetadata, projectStatus, requiresPython, sortedFiles, yankedReason } from './simple-fields.js';
import { isoUploadTime } from './timestamps.js';
import { fileUrl } from './urls.js';

/** Projects per chunk of the streamed root document. */
const ROOT_BATCH = 1000;

export function renderProjectJson(page: ProjectPage, base: string): string {
  return [...projectJsonPieces(page, base)].join('');
}

/**
 * renderProjectJson in pieces: toWireJson of the page written around its `files` (the first key in wire
 * order), `perPiece` files at a time.
 */
export function* projectJsonPieces(page: ProjectPage, base: string, perPiece = Infinity): Generator<string> {
  const files = sortedFiles(page.files);
  const rest = toCompactJson({
    meta: { 'api-version': pageApiVersion(page), '_last-serial': page.serial },
    name: page.name,
    versions: versionsOf(page),
    'project-status': projectStatus(page),
  });
  yield '{"files":[';
  for (let from = 0; from < files.length; from += perPiece) {
    const piece = files.slice(from, from + perPiece).map((file) => toCompactJson(fileJson(page, file, base)));
    yield `${from === 0 ? '' : ','}${piece.join(',')}`;
  }
  yield `],${rest.slice(1)}\n`;
}

function fileJson(page: ProjectPage, file: FileEntry, base: string): Record<string, unknown> {
  const yanked = yankedReason(file);
  const metadata = coreMetadata(file);
  const json: Record<string, unknown> = {
    filename: file.filename,
    url: fileUrl(base, page.name, file.filename),
    hashes: indexHashes(file.hashes),
    'requires-python': requiresPython(file),
    yanked: yanked === null ? false : yanked || true,
    'core-metadata': metadata,
    'data-dist-info-metadata': metadata,
  };
  if (file.size !== null) json.size = file.size;
  const uploadTime = isoUploadTime(file.uploadTime);
  if (uploadTime !== null) json['upload-time'] = uploadTime;
  if (file.provenance !== undefined) json.provenance = file.provenance;
  return json;
}

/** The page's versions plus every file's version, each once, in first-seen order. */
function versionsOf(page: ProjectPage): string[] {
  const versions = new Set(page.versions);
  for (const file of page.files) if (file.version !== null) versions.add(file.version);
  return [...versions];
}

/**
 * The root document in pieces, valid JSON once joined:
 * `{"meta":{"_last-serial":N,"api-version":"…"},"projects":[{"_last-serial":n,"name":"…"},…]}\n`.
 * `name` is the name as given; `_last-serial` appears where the entry has a serial.
 */
export async function* renderRootJsonChunks(entries: ProjectListInput, lastSerial: number): AsyncIterable<string> {
  yield `{"meta":${toCompactJson({ 'api-version': API_VERSION, '_last-serial': lastSerial })},"projects":[`;
  let batch: string[] = [];
  let first = true;
  for await (const list of listBatches(entries)) {
    for (const entry of list) {
      // Written out by hand (keys already in wire order): this runs once per project of a 600,000-name root.
      batch.push(
        entry.serial === undefined ? `{"name":${JSON.stringify(entry.name)}}` : `{"_last-serial":${entry.serial},"name":${JSON.stringify(entry.name)}}`,
      );
    }
    if (batch.length >= ROOT_BATCH) {
      yield (first ? '' : ',') + batch.join(',');
      first = false;
      batch = [];
    }
  }
  if (batch.length > 0) yield (first ? '' : ',') + batch.join(',');
  yield ']}\n';
}

export async function renderRootJson(entries: ProjectListInput, lastSerial: number): Promise<string> {
  let json = '';
  for await (const chunk of renderRootJsonChunks(entries, lastSerial)) json += chunk;
  return json;
}
