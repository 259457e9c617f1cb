/** The simple API (PEP 503/691): /simple/ and /simple/<project>/, negotiated between HTML and JSON. Hot routes. */
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { LarderError } from '../../base/errors.js';
import type { ProjectPage } from '../../model/documents.js';
import { normalizeName } from '../../model/names.js';
import { checkProjectName } from '../../model/client-names.js';
import { listFamily } from '../../cache/root-list.js';
import { isDiskFull } from '../../store/disk-space.js';
import { projectHtmlPieces, renderProjectHtml, renderRootHtmlChunks } from '../../render/simple-html.js';
import { projectJsonPieces, renderProjectJson, renderRootJsonChunks } from '../../render/simple-json.js';
import type { HttpDeps } from '../deps.js';
import type { Negotiated, Negotiator } from '../negotiate.js';
import type { Answer } from '../answer.js';
import type { ServedRoot } from '../root-render-cache.js';
import { etagListed, gzipEtag, strongEtag } from '../etag.js';
import { formatParam, header, redirectAnswer, withHeaders, type HotHandler, type HotRequest } from '../hot-route.js';
import {
  INDEX_CORS_HEADERS,
  indexCacheControl,
  indexDocumentAnswer,
  projectPageLinkBase,
  rootPageLinkBase,
  sendsGzip,
  takesGzip,
  provenanceHeaders,
  type DocumentRequest,
} from '../respond.js';

const simpleNotFound = () => new LarderError('not_found', 'Not Found', {}, '404 Not Found', 'text/plain; charset=utf-8');

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

/** The root page, `/simple/`: every project's name, rendered to files once per list and representation. */
export function simpleRootRoute(deps: HttpDeps, negotiate: Negotiator): HotHandler {
  return async (request) => {
    const chosen = negotiate(formatParam(request), header(request, 'accept'));
    const base = rootPageLinkBase(deps.config);
    // A path (LARDER_PUBLIC_URL's) starts with '/' or is empty: never this word.
    const links = `links:${base ?? 'page-relative'}`;
    const version = await deps.source.listVersion();
    const serial = await deps.source.lastSerial();
    const etag = strongEtag(`root\0${chosen.contentType}\0${version}\0${serial}\0${links}`);
    const gzip = takesGzip(header(request, 'accept-encoding'));
    const asSent = (tag: string) => (gzip ? gzipEtag(tag) : tag);
    const ifNoneMatch = header(request, 'if-none-match');
    const notModified = (tag: string) => etagListed(ifNoneMatch, asSent(tag)) || etagListed(ifNoneMatch, tag);
    const headers = (shownSerial: number, shownEtag: string): [string, string][] => [
      ...INDEX_CORS_HEADERS,
      ['Cache-Control', indexCacheControl(deps.config)],
      ['X-PyPI-Last-Serial', String(shownSerial)],
      ['Vary', 'Accept, Accept-Encoding'],
      ['ETag', asSent(shownEtag)],
    ];
    const withBody = (shown: [string, string][], length: number | null): [string, string][] => [
      ...shown,
      ['Content-Type', chosen.contentType],
      ...(gzip ? [['Content-Encoding', 'gzip'] as [string, string]] : []),
      ...(length === null ? [] : [['Content-Length', String(length)] as [string, string]]),
    ];
    if (notModified(etag)) return { status: 304, headers: headers(serial, etag), body: null };
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
      const open = async () => (gzip ? Readable.from(render()).pipe(createGzip()) : Readable.from(render()));
      return { status: 200, headers: withBody(headers(serial, etag), null), body: request.head ? null : { open } };
    }
    // While a newer list is being rendered, the previous rendering is sent with its own ETag and serial.
    const shown = headers(served.serial, served.etag);
    if (served.etag !== etag && notModified(served.etag)) return { status: 304, headers: shown, body: null };
    const file = gzip ? served.files.gzip : served.files.plain;
    return { status: 200, headers: withBody(shown, file.size), body: { path: file.path, start: 0, end: file.size - 1 } };
  };
}

/** A project's page, `/simple/<project>/`; a name that is not normalized, or no trailing slash, is redirected. */
export function projectPageRoute(deps: HttpDeps, negotiate: Negotiator, withSlash: boolean): HotHandler {
  return async (request: HotRequest) => {
    const requested = request.params.project!;
    checkProjectName(requested);
    const name = normalizeName(requested);
    if (!withSlash || name !== requested) return redirectAnswer(request, `/simple/${name}/`);
    const chosen = negotiate(formatParam(request), header(request, 'accept'));
    const { value: page, provenance } = await deps.source.getProject(name);
    if (!page) throw withHeaders(simpleNotFound(), [...provenanceHeaders(provenance), ['Vary', 'Accept']]);
    const documentRequest = { acceptEncoding: header(request, 'accept-encoding'), ifNoneMatch: header(request, 'if-none-match'), provenance };
    return projectPageAnswer(deps, page, chosen, documentRequest);
  };
}

/** `/simple` without its slash. */
export const simpleRedirectRoute: HotHandler = async (request) => redirectAnswer(request, '/simple/');
