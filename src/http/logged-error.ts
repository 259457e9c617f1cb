/**
 * How an error goes into a log entry's `err`: an expected failure (an upstream that is down, slow or
 * sends bad data, also as undici's or a socket's own error; a shared backend out of reach; a full disk; a
 * refused request) as its one-line
 * message, anything else (a bug) as the error itself, so that its stack is logged.
 */
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
