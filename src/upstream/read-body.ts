/** Reading an upstream body within a bound, as it streams. */
import { formatBytes } from '../base/units.js';
import { UpstreamError } from './upstream-error.js';
import type { UpstreamResponse } from './client.js';

const tooLarge = (what: string, limit: number) => new UpstreamError(`sent ${what} larger than ${formatBytes(limit)}`, 'invalid');

/**
 * Stops reading a body. undici's body emits an 'error' when destroyed before its end, which would be an
 * uncaught exception with no listener: one is attached first.
 */
export function discard(res: UpstreamResponse): void {
  res.body.on('error', () => {});
  res.body.destroy();
}

/** The error for an answer of a status the caller cannot use (its body is the caller's to drop). */
export function statusError(res: UpstreamResponse): UpstreamError {
  return new UpstreamError(`answered ${res.status} for ${res.url}`, 'status', res.status);
}

/** The body as it arrives, failing once more than `limit` bytes have come (after decoding). */
export async function* boundedBody(res: UpstreamResponse, limit: number, what: string): AsyncGenerator<Buffer> {
  const declared = Number(res.headers['content-length']);
  if (!res.headers['content-encoding'] && declared > limit) {
    discard(res);
    throw tooLarge(what, limit);
  }
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > limit) throw tooLarge(what, limit);
      yield chunk as Buffer;
    }
  } catch (err) {
    throw res.describe(err);
  } finally {
    if (!res.body.destroyed) discard(res);
  }
}
