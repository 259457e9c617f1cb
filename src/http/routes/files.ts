/**
 * Distribution files and their companions: GET/HEAD /packages/<project>/<filename>[.metadata|.asc]. Files
 * in the blob store are answered by file-answer.ts (also the fast path's answer); files still downloading are streamed.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { badRequest, notFound } from '../../base/errors.js';
import type { FileBody, FileVariant, Provenance, Sourced } from '../../model/documents.js';
import { normalizeName, type ProjectName } from '../../model/names.js';
import { checkFilenameSegment, checkProjectName } from '../../model/client-names.js';
import type { HttpDeps } from '../deps.js';
import { sendThroughKoa } from '../answer.js';
import { storedFileAnswer, fileHeaders, type FileRequest, type SmallBodies } from '../file-answer.js';
import type { Handoff } from '../handoff.js';

const SAFE_FILENAME = /^[^/\\\x00-\x1f\x7f]+$/;

function splitVariant(requested: string): { filename: string; variant: FileVariant } {
  if (requested.endsWith('.metadata')) return { filename: requested.slice(0, -'.metadata'.length), variant: 'metadata' };
  if (requested.endsWith('.asc')) return { filename: requested.slice(0, -'.asc'.length), variant: 'signature' };
  return { filename: requested, variant: 'file' };
}

/** A file not yet on disk: the whole file as it arrives (a server may ignore Range). */
async function sendStreamedFile(ctx: Context, body: Extract<FileBody, { kind: 'stream' }>, privateReads: boolean): Promise<void> {
  // HEAD of a file whose size the page did not give joins (or starts) its download to learn the size, and
  // lets it go on without it.
  const head = ctx.method === 'HEAD';
  const opened = head && body.size !== null ? null : await body.open();
  if (head) opened?.stream.destroy();
  for (const [name, value] of fileHeaders(body, privateReads)) ctx.set(name, value);
  ctx.status = 200;
  const size = opened?.size ?? body.size;
  if (size !== null) ctx.length = size;
  if (opened && !head) ctx.body = opened.stream;
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

export function registerFileRoutes(router: Router, deps: HttpDeps, smallBodies: SmallBodies, handoff: Handoff<Sourced<FileBody | null>>): void {
  router.get('/packages/:project/:filename', async (ctx) => {
    const requested = ctx.params.filename!;
    const { project, filename, variant } = fileTarget(ctx.params.project!, requested);
    const handed = handoff.take(ctx.req);
    const { value: body, provenance } = await (handed?.lookup ?? deps.source.openFile(project, filename, variant));
    if (provenance.cache) ctx.set('X-Larder-Cache', provenance.cache);
    if (provenance.upstream) ctx.set('X-Larder-Upstream', provenance.upstream);
    if (!body) throw notFound(`No file ${requested} in project ${project}.`);
    if (body.kind === 'stream') await sendStreamedFile(ctx, body, deps.config.readAuth);
    else
      await sendThroughKoa(
        ctx,
        await storedFileAnswer(
          body,
          fileRequest((name) => ctx.get(name) || undefined, ctx.method === 'HEAD', provenance),
          deps.config.readAuth,
          smallBodies,
        ),
      );
    if (provenance.cache === 'hit' && ctx.method === 'GET') {
      const bytes = ctx.length ?? 0;
      ctx.res.once('finish', () => deps.metrics.cacheServedBytes.inc(bytes));
    }
  });
}
