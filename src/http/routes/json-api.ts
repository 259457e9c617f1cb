/** The Warehouse JSON API: /pypi/<project>/json and /pypi/<project>/<version>/json, with /index/ aliases. Hot routes. */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { LarderError, notFound } from '../../base/errors.js';
import { normalizeName } from '../../model/names.js';
import { checkProjectName, checkVersionSegment } from '../../model/client-names.js';
import { projectJsonTemplatePieces, releaseJsonTemplatePieces } from '../../render/json-api.js';
import { fillBase, fillBaseBytes } from '../../render/json-wire.js';
import type { HttpDeps } from '../deps.js';
import { strongEtag } from '../etag.js';
import type { Answer } from '../answer.js';
import { header, redirectAnswer, withHeaders, type HotHandler, type HotRequest } from '../hot-route.js';
import type { Rendered, RenderingInPieces } from '../rendered-cache.js';
import { indexDocumentAnswer, requestBaseUrl, sendsGzip, provenanceHeaders, type DocumentRequest } from '../respond.js';

const jsonNotFound = () => new LarderError('not_found', 'Not Found', {}, '{"message": "Not Found"}', 'application/json');

/** The JSON API answers errors in JSON too: `{"message": …}`. */
const jsonError = (err: LarderError) =>
  new LarderError(err.code, err.message, err.headers, `${JSON.stringify({ message: err.message })}\n`, 'application/json');

const gzipped = promisify(gzip);

/**
 * A kept rendering with its URLs left open, filled with this request's base: its ETag is the rendering's
 * and the base's, and its gzip form is made off the main thread when the client takes gzip (and does not
 * have the document already).
 */
async function filledForRequest(request: DocumentRequest, template: Rendered, base: string): Promise<Rendered> {
  const body = fillBaseBytes(template.body, base);
  const etag = strongEtag(`${template.etag}\0${base}`);
  const filled: Rendered = { ...template, body, gzip: null, etag };
  if (sendsGzip(request, filled)) filled.gzip = await gzipped(body, { level: 6 });
  return filled;
}

function* filledPieces(pieces: Iterable<string>, base: string): Generator<string> {
  for (const piece of pieces) yield fillBase(piece, base);
}

/** `/<prefix>/<project>/json`, or with `withVersion` `/<prefix>/<project>/<version>/json`. */
export function jsonApiRoute(deps: HttpDeps, prefix: string, withVersion: boolean): HotHandler {
  return async (request: HotRequest): Promise<Answer> => {
    const requested = request.params.project!;
    const version = withVersion ? request.params.version! : null;
    try {
      checkProjectName(requested);
      if (version !== null) checkVersionSegment(version);
    } catch (err) {
      throw err instanceof LarderError ? jsonError(err) : err;
    }
    const name = normalizeName(requested);
    if (name !== requested) {
      const rest = version === null ? 'json' : `${encodeURIComponent(version)}/json`;
      return redirectAnswer(request, `/${prefix}/${name}/${rest}`);
    }
    let found: Awaited<ReturnType<typeof deps.source.getReleases>>;
    try {
      found = await deps.source.getReleases(name, version ?? undefined);
    } catch (err) {
      if (err instanceof LarderError) throw jsonError(err);
      throw err;
    }
    const { value: doc, provenance } = found;
    const traced = provenanceHeaders(provenance);
    if (!doc) throw withHeaders(jsonNotFound(), traced);
    // As pypi.org does, a quarantined project is hidden from the JSON API; the message says why.
    if (doc.status?.status === 'quarantined') throw withHeaders(jsonError(notFound(`Project ${doc.displayName} is quarantined: it is not listed.`)), traced);
    const documentRequest = { acceptEncoding: header(request, 'accept-encoding'), ifNoneMatch: header(request, 'if-none-match'), provenance };
    const render = (): RenderingInPieces => {
      const pieces = version === null ? projectJsonTemplatePieces(doc) : releaseJsonTemplatePieces(doc, version);
      if (pieces === null) throw withHeaders(jsonNotFound(), traced);
      return { pieces, contentType: 'application/json', serial: doc.serial };
    };
    const documentKey = `${name}\0${version ?? ''}`;
    // Absolute URLs, as on pypi.org: under LARDER_PUBLIC_URL (one document, kept and shared), else under this
    // request's Host, put into a kept rendering that leaves them open; the filled document is this request's
    // alone (not kept, and private to caches). A document may list 50,000 releases: it is rendered in pieces.
    const { publicUrl } = deps.config;
    if (publicUrl) {
      const key = `json\0${documentKey}`;
      const rendered = await deps.rendered.getInPieces(key, doc, () => {
        const template = render();
        return { ...template, pieces: filledPieces(template.pieces, publicUrl) };
      });
      if (sendsGzip(documentRequest, rendered)) await deps.rendered.gzipAhead(key, rendered);
      return indexDocumentAnswer(deps.config, deps.rendered, key, rendered, false, documentRequest);
    }
    const template = await deps.rendered.getInPieces(`json-template\0${documentKey}`, doc, render);
    const own = await filledForRequest(documentRequest, template, requestBaseUrl(request.req, deps.config));
    return indexDocumentAnswer(deps.config, deps.rendered, null, own, false, documentRequest);
  };
}
