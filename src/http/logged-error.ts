/**
 * How an error goes into a log entry's `err`: an expected failure (an upstream that is down, slow or
 * sends bad data, also as undici's or a socket's own error; a shared backend out of reach; a full disk; a
 * refused request) as its one-line
 * message, anything else (a bug) as the error itself, so that its stack is logged.
 */
import type { Logger } from 'pino';
import { LarderError } from '../base/errors.js';
import { VerificationError } from '../download/download-verifier.js';
import { BackendUnavailable } from '../store/backend-unavailable.js';
import { isDiskFull } from '../store/disk-space.js';
import { S3StoreError } from '../store/s3/s3-errors.js';
import { UpstreamError } from '../upstream/upstream-error.js';

/** Errors of undici and of sockets: a peer that went away, refused, timed out or cannot be found. */
const NETWORK_CODE = /^(UND_ERR_|ECONNRESET$|ECONNREFUSED$|ECONNABORTED$|ETIMEDOUT$|EPIPE$|ENOTFOUND$|EAI_AGAIN$|EHOSTUNREACH$|ENETUNREACH$)/;

export function isExpectedFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    (typeof code === 'string' && NETWORK_CODE.test(code)) ||
    err instanceof LarderError ||
    err instanceof UpstreamError ||
    err instanceof VerificationError ||
    err instanceof BackendUnavailable ||
    err instanceof S3StoreError ||
    isDiskFull(err)
  );
}

export function loggedError(err: unknown): unknown {
  return isExpectedFailure(err) ? (err as Error).message : err;
}

/**
 * How a response that fails after its head went out is logged, by Koa's routes and the hot routes alike:
 * a client that went away as debug, anything else as a warning, each error once (Koa reports a failed
 * body stream both from the stream and from its pipe into the response).
 */
export function responseFailureLog(logger: Logger): (err: NodeJS.ErrnoException) => void {
  const reported = new WeakSet<object>();
  return (err) => {
    if (typeof err === 'object' && err !== null) {
      if (reported.has(err)) return;
      reported.add(err);
    }
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE') logger.debug({ err: err.message }, 'client went away');
    else logger.warn({ err: loggedError(err) }, 'response failed');
  };
}
