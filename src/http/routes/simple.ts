/** The simple API (PEP 503/691): /simple/ and /simple/<project>/, negotiated between HTML and JSON. */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { LarderError } from '../../base/errors.js';
import type { ProjectPage, Sourced } from '../../model/documents.js';
import { normalizeName } from '../../model/names.js';
import { checkProjectName } from '../../model/client-names.js';
import { listFamily } from '../../cache/root-list.js';
import { isDiskFull } from '../../store/disk-space.js';
import { projectHtmlPieces, renderProjectHtml, renderRootHtmlChunks } from '../../render/simple-html.js';
import { projectJsonPieces, renderProjectJson, renderRootJsonChunks } from '../../render/simple-json.js';
import type { HttpDeps } from '../deps.js';
import type { Negotiated, Negotiator } from '../negotiate.js';
import { sendThroughKoa, type Answer } from '../answer.js';
import type { Handoff } from '../handoff.js';
import type { ServedRoot } from '../root-render-cache.js';
import { gzipEtag, matchesEtag, strongEtag } from '../etag.js';
import {
  acceptsGzip,
  INDEX_CORS,
  indexCacheControl,
  indexDocumentAnswer,
  projectPageLinkBase,
  rootPageLinkBase,
  sendsGzip,
  type DocumentRequest,
} from '../respond.js';

export function redirect(ctx: Context, path: string): void {
  const query = ctx.querystring ? `?${ctx.querystring}` : '';
  ctx.status = 301;
  ctx.set(INDEX_CORS);
  ctx.redirect(path + query);
}

const simpleNotFound = () => new LarderError('not_found', 'Not Found', {}, '404 Not Found', 'text/plain; charset=utf-8');

const formatOf = (ctx: Context) => (ctx.querystring ? (typeof ctx.query.format === 'string' ? ctx.query.format : undefined) : undefined);

/** A page of more files than this is rendered a slice at a time, with the event loop running between slices. */
export const PAGE_FILES_PER_PIECE = 2000;
/** A rendering larger than this is gzipped off the main thread before it is sent. */
const GZIP_AHEAD_BYTES = 256 * 1024;

/**
 * A project page rendered for one format (kept in the rendered cache, one rendering for every client: its
 * links do not depend on the request), as an answer to a request. A small page is rendered at once; a large
 * one (up to the 200,000 files a page may list) in slices, and gzipped off the main thread.
 */
export async function projectPageAnswer(deps: HttpDeps, page: ProjectPage, chosen: Negotiated, request: DocumentRequest): Promise<Answer> {
  const base = projectPageLinkBase(deps.config);
  const key = `simple\0${chosen.contentType}\0${page.name}`;
  const json = chosen.format === 'json';
  const rendered =
    page.files.length <= PAGE_FILES_PER_PIECE
      ? deps.rendered.get(key, page, () => ({
          body: json ? renderProjectJson(page, base) : renderProjectHtml(page, base),
          contentType: chosen.contentType,
          serial: page.serial,
        }))
      : await deps.rendered.getInPieces(key, page, () => ({
          pieces: json ? projectJsonPieces(page, base, PAGE_FILES_PER_PIECE) : projectHtmlPieces(page, base, PAGE_FILES_PER_PIECE),
          contentType: chosen.contentType,
          serial: page.serial,
        }));
  if (rendered.body.length > GZIP_AHEAD_BYTES && sendsGzip(request, rendered)) await deps.rendered.gzipAhead(key, rendered);
  return indexDocumentAnswer(deps.config, deps.rendered, key, rendered, true, request);
}

/** Rendered root files are kept per representation: PEP 691 JSON, PEP 691 HTML, plain text/html. */
function rootFileKind(chosen: Negotiated): string {
  if (chosen.format === 'json') return 'json';
  return chosen.contentType.startsWith('text/html') ? 'html' : 'v1html';
}

export function registerSimpleRoutes(router: Router, deps: HttpDeps, negotiate: Negotiator, handoff: Handoff<Sourced<ProjectPage | null>>): void {
  router.get('/simple', (ctx) => redirect(ctx, '/simple/'));

  router.get('/simple/', async (ctx) => {
    const chosen = negotiate(formatOf(ctx), ctx.get('Accept') || undefined);
    const base = rootPageLinkBase(deps.config);
    // A path (LARDER_PUBLIC_URL's) starts with '/' or is empty: never this word.
    const links = `links:${base ?? 'page-relative'}`;
    const version = await deps.source.listVersion();
    const serial = await deps.source.lastSerial();
    ctx.set(INDEX_CORS);
    ctx.set('Cache-Control', indexCacheControl(deps.config));
    ctx.set('X-PyPI-Last-Serial', String(serial));
    ctx.set('Vary', 'Accept, Accept-Encoding');
    const etag = strongEtag(`root\0${chosen.contentType}\0${version}\0${serial}\0${links}`);
    const gzip = acceptsGzip(ctx);
    const asSent = (tag: string) => (gzip ? gzipEtag(tag) : tag);
    const notModified = (tag: string) => matchesEtag(ctx, asSent(tag)) || matchesEtag(ctx, tag);
    if (notModified(etag)) {
      ctx.set('ETag', asSent(etag));
      ctx.status = 304;
      return;
    }
    const render = () => {
      const entries = deps.source.listProjects();
      return chosen.format === 'json' ? renderRootJsonChunks(entries, serial) : renderRootHtmlChunks(entries, base);
    };
    let served: ServedRoot;
    try {
      // The links' base is part of the family: a rendering made with other links (an earlier release built
      // them from the request's Host) never stands in for this one.
      served = await deps.rootPages.files({ etag, serial, family: `${listFamily(version)}\0${links}` }, rootFileKind(chosen), render);
    } catch (err) {
      if (!isDiskFull(err)) throw err;
      // The disk is full: the page is rendered straight to the client and not kept.
      ctx.set('ETag', asSent(etag));
      ctx.type = chosen.contentType;
      if (gzip) ctx.set('Content-Encoding', 'gzip');
      if (ctx.method !== 'HEAD') ctx.body = gzip ? Readable.from(render()).pipe(createGzip()) : Readable.from(render());
      return;
    }
    // While a newer list is being rendered, the previous rendering is sent with its own ETag and serial.
    ctx.set('X-PyPI-Last-Serial', String(served.serial));
    ctx.set('ETag', asSent(served.etag));
    if (served.etag !== etag && notModified(served.etag)) {
      ctx.status = 304;
      return;
    }
    ctx.type = chosen.contentType;
    if (gzip) ctx.set('Content-Encoding', 'gzip');
    const file = gzip ? served.files.gzip : served.files.plain;
    ctx.length = file.size;
    if (ctx.method !== 'HEAD') ctx.body = createReadStream(file.path);
  });

  const projectPage = async (ctx: Context, withSlash: boolean) => {
    const requested = ctx.params.project!;
    checkProjectName(requested);
    const name = normalizeName(requested);
    if (!withSlash || name !== requested) return redirect(ctx, `/simple/${name}/`);
    const chosen = negotiate(formatOf(ctx), ctx.get('Accept') || undefined);
    const handed = handoff.take(ctx.req);
    const { value: page, provenance } = await (handed?.lookup ?? deps.source.getProject(name));
    if (!page) {
      if (provenance.cache) ctx.set('X-Larder-Cache', provenance.cache);
      if (provenance.upstream) ctx.set('X-Larder-Upstream', provenance.upstream);
      ctx.vary('Accept');
      throw simpleNotFound();
    }
    const request = { acceptEncoding: ctx.get('Accept-Encoding') || undefined, ifNoneMatch: ctx.get('If-None-Match') || undefined, provenance };
    await sendThroughKoa(ctx, await projectPageAnswer(deps, page, chosen, request));
  };
  router.get('/simple/:project/', (ctx) => projectPage(ctx, true));
  router.get('/simple/:project', (ctx) => projectPage(ctx, false));
}
