/** The simple API (PEP 503/691): /simple/ and /simple/<project>/, negotiated between HTML and JSON. */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { LarderError } from '../../base/errors.js';
import { normalizeName } from '../../model/names.js';
import { checkProjectName } from '../../index/client-names.js';
import { isDiskFull } from '../../store/disk-space.js';
import { renderProjectHtml, renderRootHtmlChunks } from '../../render/simple-html.js';
import { renderProjectJson, renderRootJsonChunks } from '../../render/simple-json.js';
import { sendThroughKoa } from '../answer.js';
import { gzipEtag, matchesEtag, strongEtag } from '../etag.js';
import { acceptsGzip, baseUrl, INDEX_CORS, indexCacheControl, indexDocumentAnswer } from '../respond.js';
export function redirect(ctx, path) {
    const query = ctx.querystring ? `?${ctx.querystring}` : '';
    ctx.status = 301;
    ctx.set(INDEX_CORS);
    ctx.redirect(path + query);
}
const simpleNotFound = () => new LarderError('not_found', 'Not Found', {}, '404 Not Found', 'text/plain; charset=utf-8');
const formatOf = (ctx) => (ctx.querystring ? (typeof ctx.query.format === 'string' ? ctx.query.format : undefined) : undefined);
/** A project page rendered for one format and base URL (kept in the rendered cache), as an answer to a request. */
export function projectPageAnswer(deps, page, chosen, base, request) {
    const key = `simple\0${chosen.contentType}\0${base}\0${page.name}`;
    const rendered = deps.rendered.get(key, page, () => ({
        body: chosen.format === 'json' ? renderProjectJson(page, base) : renderProjectHtml(page, base),
        contentType: chosen.contentType,
        serial: page.serial,
    }));
    return indexDocumentAnswer(deps.config, deps.rendered, key, rendered, true, request);
}
export function registerSimpleRoutes(router, deps, negotiate, handoff) {
    router.get('/simple', (ctx) => redirect(ctx, '/simple/'));
    router.get('/simple/', async (ctx) => {
        const chosen = negotiate(formatOf(ctx), ctx.get('Accept') || undefined);
        const base = baseUrl(ctx, deps.config);
        const version = await deps.source.listVersion();
        const serial = await deps.source.lastSerial();
        ctx.set(INDEX_CORS);
        ctx.set('Cache-Control', indexCacheControl(deps.config));
        ctx.set('X-PyPI-Last-Serial', String(serial));
        ctx.set('Vary', 'Accept, Accept-Encoding');
        const etag = strongEtag(`root\0${chosen.contentType}\0${version}\0${serial}\0${base}`);
        const gzip = acceptsGzip(ctx);
        const sentEtag = gzip ? gzipEtag(etag) : etag;
        ctx.set('ETag', sentEtag);
        if (matchesEtag(ctx, sentEtag) || matchesEtag(ctx, etag)) {
            ctx.status = 304;
            return;
        }
        const render = () => {
            const entries = deps.source.listProjects();
            // Links relative to the host (as on pypi.org) keep a 600,000-project page small; a path prefix of the
            // public URL is kept.
            return chosen.format === 'json' ? renderRootJsonChunks(entries, serial) : renderRootHtmlChunks(entries, new URL(base).pathname.replace(/\/$/, ''));
        };
        ctx.type = chosen.contentType;
        if (gzip)
            ctx.set('Content-Encoding', 'gzip');
        let rendered;
        try {
            rendered = await deps.rootPages.files(etag, chosen.format, render);
        }
        catch (err) {
            if (!isDiskFull(err))
                throw err;
            // The disk is full: the page is rendered straight to the client and not kept.
            if (ctx.method !== 'HEAD')
                ctx.body = gzip ? Readable.from(render()).pipe(createGzip()) : Readable.from(render());
            return;
        }
        const file = gzip ? rendered.gzip : rendered.plain;
        ctx.length = file.size;
        if (ctx.method !== 'HEAD')
            ctx.body = createReadStream(file.path);
    });
    const projectPage = async (ctx, withSlash) => {
        const requested = ctx.params.project;
        checkProjectName(requested);
        const name = normalizeName(requested);
        if (!withSlash || name !== requested)
            return redirect(ctx, `/simple/${name}/`);
        const chosen = negotiate(formatOf(ctx), ctx.get('Accept') || undefined);
        const handed = handoff.take(ctx.req);
        const trace = handed?.trace ?? {};
        const page = await (handed?.lookup ?? deps.source.getProject(name, trace));
        if (!page) {
            if (trace.cache)
                ctx.set('X-Larder-Cache', trace.cache);
            if (trace.upstream)
                ctx.set('X-Larder-Upstream', trace.upstream);
            ctx.vary('Accept');
            throw simpleNotFound();
        }
        const request = { acceptEncoding: ctx.get('Accept-Encoding') || undefined, ifNoneMatch: ctx.get('If-None-Match') || undefined, trace };
        await sendThroughKoa(ctx, projectPageAnswer(deps, page, chosen, baseUrl(ctx, deps.config), request));
    };
    router.get('/simple/:project/', (ctx) => projectPage(ctx, true));
    router.get('/simple/:project', (ctx) => projectPage(ctx, false));
}
