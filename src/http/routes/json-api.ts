/** The Warehouse JSON API: /pypi/<project>/json and /pypi/<project>/<version>/json, with /index/ aliases. */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { LarderError } from '../../base/errors.js';
import { normalizeName } from '../../model/names.js';
import { checkProjectName, checkVersionSegment } from '../../model/client-names.js';
import { projectJsonTemplatePieces, releaseJsonTemplatePieces } from '../../render/json-api.js';
import { fillBase, fillBaseBytes } from '../../render/json-wire.js';
import type { HttpDeps } from '../deps.js';
import { strongEtag } from '../etag.js';
import type { Rendered, RenderingInPieces } from '../rendered-cache.js';
import { requestBaseUrl, sendIndexDocument, sendsGzip } from '../respond.js';
import { redirect } from './simple.js';

const jsonNotFound = () => new LarderError('not_found', 'Not Found', {}, '{"message": "Not Found"}', 'application/json');

/** The JSON API answers errors in JSON too: `{"message": …}`. */
const jsonError = (err: LarderError) =>
  new LarderError(err.code, err.message, err.headers, `${JSON.stringify({ message: err.message })}\n`, 'application/json');

const gzipped = promisify(gzip);

/** What the request says about gzip and the copy it has, for `sendsGzip`. */
const documentRequest = (ctx: Context) => ({ acceptEncoding: ctx.get('Accept-Encoding') || undefined, ifNoneMatch: ctx.get('If-None-Match') || undefined });

/**
 * A kept rendering with its URLs left open, filled with this request's base: its ETag is the rendering's
 * and the base's, and its gzip form is made off the main thread when the client takes gzip (and does not
 * have the document already).
 */
async function filledForRequest(ctx: Context, template: Rendered, base: string): Promise<Rendered> {
  const body = fillBaseBytes(template.body, base);
  const etag = strongEtag(`${template.etag}\0${base}`);
  const filled: Rendered = { ...template, body, gzip: null, etag };
  if (sendsGzip(documentRequest(ctx), filled)) filled.gzip = await gzipped(body, { level: 6 });
  return filled;
}

function* filledPieces(pieces: Iterable<string>, base: string): Generator<string> {
  for (const piece of pieces) yield fillBase(piece, base);
}

export function registerJsonApiRoutes(router: Router, deps: HttpDeps): void {
  const handle = async (ctx: Context, prefix: string, version: string | null) => {
    const requested = ctx.params.project!;
    try {
      checkProjectName(requested);
      if (version !== null) checkVersionSegment(version);
    } catch (err) {
      throw err instanceof LarderError ? jsonError(err) : err;
    }
    const name = normalizeName(requested);
    if (name !== requested) {
      const rest = version === null ? 'json' : `${encodeURIComponent(version)}/json`;
      return redirect(ctx, `/${prefix}/${name}/${rest}`);
    }
    let answer: Awaited<ReturnType<typeof deps.source.getReleases>>;
    try {
      answer = await deps.source.getReleases(name, version ?? undefined);
    } catch (err) {
      if (err instanceof LarderError) throw jsonError(err);
      throw err;
    }
    const { value: doc, provenance } = answer;
    if (provenance.cache) ctx.set('X-Larder-Cache', provenance.cache);
    if (provenance.upstream) ctx.set('X-Larder-Upstream', provenance.upstream);
    if (!doc) throw jsonNotFound();
    const render = (): RenderingInPieces => {
      const pieces = version === null ? projectJsonTemplatePieces(doc) : releaseJsonTemplatePieces(doc, version);
      if (pieces === null) throw jsonNotFound();
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
      if (sendsGzip(documentRequest(ctx), rendered)) await deps.rendered.gzipAhead(key, rendered);
      return sendIndexDocument(ctx, deps.config, deps.rendered, key, rendered, false);
    }
    const template = await deps.rendered.getInPieces(`json-template\0${documentKey}`, doc, render);
    const own = await filledForRequest(ctx, template, requestBaseUrl(ctx, deps.config));
    await sendIndexDocument(ctx, deps.config, deps.rendered, null, own, false);
  };
  for (const prefix of ['pypi', 'index']) {
    for (const slash of ['', '/']) {
      router.get(`/${prefix}/:project/json${slash}`, (ctx) => handle(ctx, prefix, null));
      router.get(`/${prefix}/:project/:version/json${slash}`, (ctx) => handle(ctx, prefix, ctx.params.version!));
    }
  }
}
