/**
 * Distribution files and their companions: GET/HEAD /packages/<project>/<filename>[.metadata|.asc], a hot
 * route. Files in the blob store are answered by file-answer.ts; files still downloading are streamed.
 * Distribution files served are recorded by the download audit (not `.metadata` nor `.asc`).
 */
import { badRequest, LarderError, notFound } from '../../base/errors.js';
import type { FileBody, FileVariant, Provenance } from '../../model/documents.js';
import { normalizeName, type ProjectName } from '../../model/names.js';
import { checkFilenameSegment, checkProjectName } from '../../model/client-names.js';
import type { HttpDeps } from '../deps.js';
import type { Answer } from '../answer.js';
import { storedFileAnswer, fileHeaders, type FileRequest, type SmallBodies } from '../file-answer.js';
import { header, withHeaders, type HotHandler } from '../hot-route.js';
import { auditDownload } from '../audited-download.js';
import { provenanceHeaders } from '../respond.js';

const SAFE_FILENAME = /^[^/\\\x00-\x1f\x7f]+$/;

function splitVariant(requested: string): { filename: string; variant: FileVariant } {
  if (requested.endsWith('.metadata')) return { filename: requested.slice(0, -'.metadata'.length), variant: 'metadata' };
  if (requested.endsWith('.asc')) return { filename: requested.slice(0, -'.asc'.length), variant: 'signature' };
  return { filename: requested, variant: 'file' };
}

/** A file not yet on disk: the whole file as it arrives (a server may ignore Range). */
async function streamedFileAnswer(body: Extract<FileBody, { kind: 'stream' }>, head: boolean, privateReads: boolean, provenance: Provenance): Promise<Answer> {
  // HEAD of a file whose size the page did not give joins (or starts) its download to learn the size, and
  // lets it go on without it.
  const opened = head && body.size !== null ? null : await body.open();
  if (head) opened?.stream.destroy();
  const headers = [...provenanceHeaders(provenance), ...fileHeaders(body, privateReads)];
  const size = opened?.size ?? body.size;
  if (size !== null) headers.push(['Content-Length', String(size)]);
  return { status: 200, headers, body: opened && !head ? { open: async () => opened.stream } : null };
}

export function fileRequest(get: (name: string) => string | undefined, head: boolean, provenance: Provenance): FileRequest {
  return { head, ifNoneMatch: get('if-none-match'), ifRange: get('if-range'), range: get('range'), provenance };
}

/** Where a file request names its file: the normalized project, the file and which of its variants. */
export function fileTarget(projectSegment: string, filenameSegment: string): { project: ProjectName; filename: string; variant: FileVariant } {
  if (!SAFE_FILENAME.test(filenameSegment) || filenameSegment === '.' || filenameSegment === '..') {
    throw badRequest('invalid_filename', `Invalid file name in the URL: ${JSON.stringify(filenameSegment)}.`);
  }
  checkProjectName(projectSegment);
  const project = normalizeName(projectSegment);
  const { filename, variant } = splitVariant(filenameSegment);
  checkFilenameSegment(filename);
  return { project, filename, variant };
}

export function fileRoute(deps: HttpDeps, smallBodies: SmallBodies): HotHandler {
  return async (request) => {
    const requested = request.params.filename!;
    const { project, filename, variant } = fileTarget(request.params.project!, requested);
    let provenance: Provenance = {};
    let answer: Answer;
    try {
      const found = await deps.source.openFile(project, filename, variant);
      provenance = found.provenance;
      const body = found.value;
      if (!body) throw notFound(`No file ${requested} in project ${project}.`);
      answer =
        body.kind === 'stream'
          ? await streamedFileAnswer(body, request.head, deps.config.readAuth, provenance)
          : await storedFileAnswer(
              body,
              fileRequest((name) => header(request, name), request.head, provenance),
              deps.config.readAuth,
              smallBodies,
            );
      if (deps.audit && variant === 'file') {
        const checking = auditDownload(deps.audit, deps, request, { project, filename, body, answer });
        if (checking) await checking;
      }
    } catch (err) {
      // An answer refused after the lookup (not found, a range that cannot be satisfied) still says where it looked.
      throw err instanceof LarderError ? withHeaders(err, provenanceHeaders(provenance)) : err;
    }
    if (provenance.cache === 'hit' && !request.head) {
      const bytes = Number(answer.headers.find(([name]) => name === 'Content-Length')?.[1] ?? 0);
      answer.sent = () => deps.metrics.cacheServedBytes.inc(bytes);
    }
    return answer;
  };
}
