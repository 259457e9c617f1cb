import { LarderError } from '../../base/errors.js';
import { normalizeName } from '../../model/names.js';
import { checkProjectName, checkVersionSegment } from '../../index/client-names.js';
import { renderProjectJson, renderReleaseJson } from '../../render/json-api.js';
import { baseUrl, sendIndexDocument } from '../respond.js';
import { redirect } from './simple.js';
const jsonNotFound = () => new LarderError('not_found', 'Not Found', {}, '{"message": "Not Found"}', 'application/json');
/** The JSON API answers errors in JSON too: `{"message": …}`. */
const jsonError = (err) => new LarderError(err.code, err.message, err.headers, `${JSON.stringify({ message: err.message })}\n`, 'application/json');
export function registerJsonApiRoutes(router, deps) {
    const handle = async (ctx, prefix, version) => {
        const requested = ctx.params.project;
        try {
            checkProjectName(requested);
            if (version !== null)
                checkVersionSegment(version);
        }
        catch (err) {
            throw err instanceof LarderError ? jsonError(err) : err;
        }
        const name = normalizeName(requested);
        if (name !== requested) {
            const rest = version === null ? 'json' : `${encodeURIComponent(version)}/json`;
            return redirect(ctx, `/${prefix}/${name}/${rest}`);
        }
        const trace = {};
        let doc;
        try {
            doc = await deps.source.getReleases(name, trace, version ?? undefined);
        }
        catch (err) {
            if (err instanceof LarderError)
                throw jsonError(err);
            throw err;
        }
        if (trace.cache)
            ctx.set('X-Larder-Cache', trace.cache);
        if (trace.upstream)
            ctx.set('X-Larder-Upstream', trace.upstream);
        if (!doc)
            throw jsonNotFound();
        const base = baseUrl(ctx, deps.config);
        const key = `json\0${base}\0${name}\0${version ?? ''}`;
        const rendered = deps.rendered.get(key, doc, () => {
            const body = version === null ? renderProjectJson(doc, base) : renderReleaseJson(doc, version, base);
            if (body === null)
                throw jsonNotFound();
            return { body, contentType: 'application/json', serial: doc.serial };
        });
        await sendIndexDocument(ctx, deps.config, deps.rendered, key, rendered, false);
    };
    for (const prefix of ['pypi', 'index']) {
        for (const slash of ['', '/']) {
            router.get(`/${prefix}/:project/json${slash}`, (ctx) => handle(ctx, prefix, null));
            router.get(`/${prefix}/:project/:version/json${slash}`, (ctx) => handle(ctx, prefix, ctx.params.version));
        }
    }
}
