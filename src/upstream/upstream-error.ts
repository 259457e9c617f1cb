/**
 * What went wrong with an upstream request, in words for the person at the client and a kind for metrics.
 * An UpstreamError never reaches a client as such: UpstreamFetcher.failure turns it into the LarderError
 * whose code `UPSTREAM_ERROR_CODES` gives for its kind.
 */
import type { ErrorCode } from '../base/error-catalogue.js';

export type UpstreamErrorKind =
  /** A time-out or the total deadline. */
  | 'timeout'
  /** The connection failed. */
  | 'unreachable'
  /** An unexpected status. */
  | 'status'
  /** Content larder cannot read, or too much of it. */
  | 'invalid'
  /** A URL on a host larder does not fetch from (LARDER_FILE_HOSTS). */
  | 'refused';

/** The client-facing code of each kind (a time-out is a 504, everything else a 502). */
export const UPSTREAM_ERROR_CODES = {
  timeout: 'upstream_timeout',
  unreachable: 'upstream_unreachable',
  status: 'upstream_status',
  invalid: 'upstream_invalid',
  refused: 'upstream_refused',
} as const satisfies Record<UpstreamErrorKind, ErrorCode>;

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly kind: UpstreamErrorKind,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** An error from undici or a socket, as an UpstreamError. */
export function classify(err: unknown): UpstreamError {
  if (err instanceof UpstreamError) return err;
  const e = (err ?? {}) as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? '';
  const cause = e.cause?.code ?? '';
  const message = e.message ?? String(err);
  if (TIMEOUT_CODES.has(code) || TIMEOUT_CODES.has(cause)) return new UpstreamError(`timed out (${code || cause})`, 'timeout');
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return new UpstreamError(message, 'invalid');
  return new UpstreamError(`${code || cause || 'connection failed'}: ${message}`, 'unreachable');
}
