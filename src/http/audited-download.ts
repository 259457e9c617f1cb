/**
 * The download audit's view of a file answer: which answers count as a download served (200 and 206 with
 * the file's bytes, and the redirect to object storage that hands them out; not HEAD, not 304), who asked
 * (the identity read authentication proved, or else the credentials the request carries, checked; invalid
 * ones are `anonymous` as reads need none) and from where.
 */
import type { Identity } from '../auth/authenticator.js';
import type { DownloadAudit } from '../audit/download-audit.js';
import type { FileBody } from '../model/documents.js';
import type { Answer } from './answer.js';
import type { HttpDeps } from './deps.js';
import type { HotRequest } from './hot-route.js';
import { identifyBy } from './identity.js';

const SERVED = new Set([200, 206, 302]);

/** The sha256 a body is known by: the stored blob's, or the one the upstream page lists (its ETag). */
function sha256Of(body: FileBody): string | null {
  if (body.kind === 'stored') return body.sha256;
  return body.etag?.match(/^"([0-9a-f]{64})"$/)?.[1] ?? null;
}

/**
 * Records the answer when it serves the file; never throws (the download goes on whatever happens here).
 * Synchronous unless credentials that read authentication did not check have to be checked first.
 */
export function auditDownload(
  audit: DownloadAudit,
  deps: HttpDeps,
  request: HotRequest,
  served: { project: string; filename: string; body: FileBody; answer: Answer },
): Promise<void> | undefined {
  const { project, filename, body, answer } = served;
  if (request.head || !SERVED.has(answer.status)) return undefined;
  const record = (who: Identity | null) =>
    audit.record({
      at: deps.clock.now(),
      client: deps.clientAddress(request.req.socket.remoteAddress, request.headers['x-forwarded-for']),
      user: who?.user ?? 'anonymous',
      token: who?.tokenId ?? null,
      project,
      filename,
      sha256: sha256Of(body),
    });
  const authorization = request.headers.authorization;
  if (request.reader || !authorization) {
    record(request.reader);
    return undefined;
  }
  return identifyBy(authorization, request.req.socket.remoteAddress ?? '', deps.authenticator)
    .catch(() => null)
    .then(record);
}
