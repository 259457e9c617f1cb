/**
 * Turns every error into a response: the status, the message as the reason phrase (twine prints it) and
 * as a plain-text body. Unexpected errors become a 500 whose details go to the log only. The error's code
 * is left in `ctx.state.errorCode` for the request log line; 5xx answers are also logged with their cause:
 * an expected failure (an upstream, a backend, a full disk) as one line, an unexpected one with its stack.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { LarderError } from '../base/errors.js';
import type { Answer } from './answer.js';
import type { StorageReporter } from '../metrics/storage-reporter.js';
import { isDiskFull } from '../store/disk-space.js';
import { BackendUnavailable } from '../store/backend-unavailable.js';
import { S3StoreError } from '../store/s3/s3-errors.js';

/** Node refuses reason phrases outside tab, printable ASCII and latin-1; other characters become '?'. */
export function reasonPhrase(message: string): string {
  return message.replace(/[^\t\x20-\x7e\xa0-\xff]/g, '?').slice(0, 1024);
}

/** An http-errors error (koa-body's, when a JSON body cannot be read) as a catalogued LarderError. */
function fromKoaError(err: { status?: number; statusCode?: number; expose?: boolean; message?: string }): LarderError | null {
  const status = err.status ?? err.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return null;
  const message = err.expose && err.message ? err.message : status === 413 ? 'Request body too large.' : 'Request failed.';
  const code = status === 413 ? 'request_too_large' : status === 415 ? 'unsupported_media_type' : 'invalid_request';
  return new LarderError(code, message);
}

const diskFull = () =>
  new LarderError('disk_full', "The server's data disk is full, so larder could not store this; nothing was changed. Try again once space has been freed.");

/** A shared backend that cannot be reached (or is too slow): 503 with its one-line message. */
function unavailable(err: unknown): LarderError | null {
  const blobStoreDown = err instanceof S3StoreError && err.code !== 'ENOENT';
  if (!(err instanceof BackendUnavailable) && !blobStoreDown) return null;
  const what = blobStoreDown ? 'The blob store cannot be used: ' : '';
  return new LarderError('backend_unavailable', `${what}${err.message}`.replace(/\.?$/, '.'));
}

/** Where a failed request came from, for the log line of a 5xx and the disk-full report. */
export interface FailedRequest {
  method: string;
  path: string;
}

/**
 * The catalogued error a failure is answered with; a 5xx is logged with its cause, a full disk reported.
 * Shared by the Koa stack (`errorMiddleware`) and the hot routes (`answerRequest` in entry.ts).
 */
export function errorFor(caught: unknown, request: FailedRequest, logger: Logger, storageReporter: StorageReporter): LarderError {
  if (!(caught instanceof LarderError) && isDiskFull(caught)) storageReporter.diskFull('upload', `${request.method} ${request.path}`, caught as Error);
  let err = caught instanceof LarderError ? caught : isDiskFull(caught) ? diskFull() : (unavailable(caught) ?? fromKoaError(caught as object));
  err ??= new LarderError('internal', 'Internal server error; the details are in the server log.');
  if (err.status >= 500) {
    const expected = err.code !== 'internal';
    logger.error({ err: expected ? ((caught as Error).message ?? err.message) : caught, code: err.code, ...request }, 'request failed');
  }
  return err;
}

/** An error as an answer: its status, its message as the reason phrase and, unless it has its own, as a plain-text body. */
export function errorAnswer(err: LarderError, headers: [string, string][] = []): Answer {
  const body = Buffer.from(err.body ?? `${err.message}\n`);
  return {
    status: err.status,
    reason: reasonPhrase(err.message),
    headers: [
      ...headers,
      ...Object.entries(err.headers),
      ['Content-Type', err.contentType ?? 'text/plain; charset=utf-8'],
      ['Content-Length', String(body.length)],
    ],
    body,
  };
}

export function errorMiddleware(logger: Logger, storageReporter: StorageReporter) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (caught) {
      const err = errorFor(caught, { method: ctx.method, path: ctx.path }, logger, storageReporter);
      ctx.state.errorCode = err.code;
      if (ctx.headerSent || !ctx.writable) {
        ctx.res.destroy();
        return;
      }
      // Discard the rest of an unread request body (a refused upload) so the client gets to read the answer.
      if (!ctx.req.readableEnded) ctx.req.resume();
      ctx.set(err.headers);
      ctx.status = err.status;
      ctx.message = reasonPhrase(err.message);
      ctx.type = err.contentType ?? 'text/plain; charset=utf-8';
      ctx.body = err.body ?? `${err.message}\n`;
    }
  };
}
