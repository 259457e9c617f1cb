/**
 * The one way into the HTTP server. Each request's path is matched once against the route table; a GET or
 * HEAD of a hot route is answered here (read authentication, the handler's answer or its error, one writer),
 * everything else goes to the Koa stack. Both record the request through the same `RequestRecorder`, map
 * errors with the same `errorFor`, and check credentials with the same function.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import parseurl from 'parseurl';
import type { Authenticator } from '../auth/authenticator.js';
import type { CacheState } from '../model/documents.js';
import type { StorageReporter } from '../metrics/storage-reporter.js';
import { writeAnswer, type Answer, type SendFailure } from './answer.js';
import { errorAnswer, errorFor } from './error-middleware.js';
import { requireReader } from './read-auth.js';
import type { RequestRecorder } from './request-log.js';
import type { RouteTable } from './route-table.js';
import { hotMatcher, type HotMatch } from './hot-match.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface EntryParts {
  routes: RouteTable;
  /** The Koa stack, for every request that is not a GET or HEAD of a hot route. */
  koa: Handler;
  record: RequestRecorder;
  logger: Logger;
  storageReporter: StorageReporter;
  /** Set when reads need credentials (LARDER_READ_AUTH). */
  readers: Authenticator | null;
  failed: SendFailure;
}

const headerOf = (answer: Answer, name: string) => answer.headers.find(([key]) => key === name)?.[1];

export function oneEntry(parts: EntryParts): Handler {
  const { routes, koa, record, logger, storageReporter, readers, failed } = parts;
  const hotMatch = hotMatcher(routes);

  const answerHot = async (req: IncomingMessage, res: ServerResponse, path: string, query: string, match: HotMatch): Promise<void> => {
    const method = req.method!;
    const head = method === 'HEAD';
    const seen: { code?: string; cache: CacheState | ''; bytes?: number } = { cache: '' };
    record(res, () => ({ method, path, route: match.route, code: seen.code, cache: seen.cache, bytes: seen.bytes }));
    const send = async (answer: Answer) => {
      seen.cache = (headerOf(answer, 'X-Larder-Cache') as CacheState | undefined) ?? '';
      seen.bytes = Number(headerOf(answer, 'Content-Length')) || undefined;
      if (answer.sent) res.once('finish', answer.sent);
      await writeAnswer(res, answer, head, failed);
    };
    try {
      const reader = readers ? await requireReader(req, readers) : null;
      await send(await match.handler({ head, params: match.params, query, headers: req.headers, req, reader }));
    } catch (caught) {
      const err = errorFor(caught, { method, path }, logger, storageReporter);
      seen.code = err.code;
      if (res.headersSent) res.destroy();
      else await send(errorAnswer(err));
    }
  };

  return (req, res) => {
    const method = req.method;
    if (method === 'GET' || method === 'HEAD') {
      const url = parseurl(req);
      const path = url?.pathname;
      const match = path ? hotMatch(path, method) : null;
      if (match) {
        void answerHot(req, res, path!, typeof url!.query === 'string' ? url!.query : '', match).catch((err: Error) => {
          failed(err);
          res.destroy(err);
        });
        return;
      }
    }
    koa(req, res);
  };
}
