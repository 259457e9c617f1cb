/**
 * The fast path: the two requests installers repeat most, a project page and a file kept on disk, answered
 * before the Koa stack (context objects, middleware, router) when the answer needs nothing else. It shares
 * the lookup, negotiation, ETag and header code with the routes (`projectPageAnswer`, `storedFileAnswer`,
 * `sendRaw`), so both entry points answer alike. Anything else (another URL, a query string, an encoded
 * path, a name that is not normalized, read authentication, a page not found, an error, a file still
 * downloading) goes to Koa; a lookup already started is handed to the route (`Handoff`), never repeated.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FileBody, ProjectPage, Provenance, Sourced } from '../model/documents.js';
import { normalizeName, type ProjectName } from '../model/names.js';
import { checkProjectName } from '../model/client-names.js';
import { sendRaw, type Answer } from './answer.js';
import type { HttpDeps } from './deps.js';
import { storedFileAnswer, type SmallBodies } from './file-answer.js';
import type { Handoff } from './handoff.js';
import type { Negotiator } from './negotiate.js';
import type { RequestRecorder } from './request-log.js';
import { loggedError } from './logged-error.js';
import { fileRequest, fileTarget } from './routes/files.js';
import { projectPageAnswer } from './routes/simple.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface FastPathParts {
  negotiate: Negotiator;
  smallBodies: SmallBodies;
  pages: Handoff<Sourced<ProjectPage | null>>;
  files: Handoff<Sourced<FileBody | null>>;
  record: RequestRecorder;
}

/** Project and file segments: anything percent-encoded or otherwise unusual is left to the router. */
const PAGE = /^\/simple\/([A-Za-z0-9._-]+)\/$/;
const FILE = /^\/packages\/([A-Za-z0-9._-]+)\/([A-Za-z0-9._+!~-]+)$/;

type FileTarget = ReturnType<typeof fileTarget>;

function validName(name: string): boolean {
  try {
    checkProjectName(name);
    return true;
  } catch {
    return false;
  }
}

function validTarget(projectSegment: string, filenameSegment: string): FileTarget | null {
  try {
    return fileTarget(projectSegment, filenameSegment);
  } catch {
    return null;
  }
}

export function fastPath(deps: HttpDeps, parts: FastPathParts, next: Handler): Handler {
  if (deps.config.readAuth) return next;
  const { negotiate, smallBodies, record } = parts;

  /**
   * Records the request from its start, so that a client leaving while the lookup waits is logged (499);
   * Koa's request log takes over the description of a request handed to it. Returns where `send` notes the
   * length and the lookup where its answer came from.
   */
  const track = (req: IncomingMessage, res: ServerResponse, route: string, start: bigint) => {
    const sent: { length?: string; provenance?: Provenance } = {};
    record(
      res,
      () => ({
        method: req.method!,
        path: req.url!,
        route,
        code: undefined,
        cache: sent.provenance?.cache ?? '',
        bytes: sent.length === undefined ? undefined : Number(sent.length) || undefined,
      }),
      start,
    );
    return sent;
  };

  const send = async (req: IncomingMessage, res: ServerResponse, answer: Answer, sent: { length?: string }): Promise<void> => {
    sent.length = answer.headers.find(([name]) => name === 'Content-Length')?.[1];
    // Opens a file before anything is sent: a failure there hands the request over untouched.
    await sendRaw(res, answer, req.method === 'HEAD');
  };

  const page = async (req: IncomingMessage, res: ServerResponse, requested: ProjectName, start: bigint): Promise<void> => {
    const sent = track(req, res, '/simple/:project/', start);
    const lookup = deps.source.getProject(requested);
    try {
      const { value: found, provenance } = await lookup;
      sent.provenance = provenance;
      if (found) {
        const { headers } = req;
        const chosen = negotiate(undefined, headers.accept || undefined);
        const request = { acceptEncoding: headers['accept-encoding'] || undefined, ifNoneMatch: headers['if-none-match'] || undefined, provenance };
        return await send(req, res, await projectPageAnswer(deps, found, chosen, request), sent);
      }
    } catch {
      // The route answers errors.
    }
    parts.pages.give(req, { lookup });
    next(req, res);
  };

  const file = async (req: IncomingMessage, res: ServerResponse, target: FileTarget, start: bigint): Promise<void> => {
    const sent = track(req, res, '/packages/:project/:filename', start);
    const lookup = deps.source.openFile(target.project, target.filename, target.variant);
    try {
      const { value: body, provenance } = await lookup;
      sent.provenance = provenance;
      if (body?.kind === 'stored') {
        const get = (name: string) => req.headers[name] as string | undefined;
        const answer = await storedFileAnswer(body, fileRequest(get, req.method === 'HEAD', provenance), deps.config.readAuth, smallBodies);
        await send(req, res, answer, sent);
        if (provenance.cache === 'hit' && req.method === 'GET') {
          const bytes = Number(answer.headers.find(([name]) => name === 'Content-Length')?.[1] ?? 0);
          res.once('finish', () => deps.metrics.cacheServedBytes.inc(bytes));
        }
        return;
      }
    } catch {
      // The route answers errors (a range that cannot be satisfied, a file that went away).
    }
    parts.files.give(req, { lookup });
    next(req, res);
  };

  const failed = (res: ServerResponse) => (err: Error) => {
    deps.logger.error({ err: loggedError(err) }, 'fast path failed');
    res.destroy(err);
  };

  return (req, res) => {
    const url = req.url ?? '';
    if ((req.method === 'GET' || req.method === 'HEAD') && url.length < 512) {
      const start = process.hrtime.bigint();
      const pageMatch = PAGE.exec(url);
      if (pageMatch) {
        const requested = pageMatch[1]!;
        const name = validName(requested) ? normalizeName(requested) : null;
        if (name === requested) {
          void page(req, res, name, start).catch(failed(res));
          return;
        }
      }
      const fileMatch = FILE.exec(url);
      const target = fileMatch && validTarget(fileMatch[1]!, fileMatch[2]!);
      if (target) {
        void file(req, res, target, start).catch(failed(res));
        return;
      }
    }
    next(req, res);
  };
}
