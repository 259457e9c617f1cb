import { normalizeName } from '../model/names.js';
import { checkProjectName } from '../index/client-names.js';
import { sendRaw } from './answer.js';
import { diskFileAnswer } from './file-answer.js';
import { baseUrlFor } from './respond.js';
import { fileRequest, fileTarget } from './routes/files.js';
import { projectPageAnswer } from './routes/simple.js';
/** Project and file segments: anything percent-encoded or otherwise unusual is left to the router. */
const PAGE = /^\/simple\/([A-Za-z0-9._-]+)\/$/;
const FILE = /^\/packages\/([A-Za-z0-9._-]+)\/([A-Za-z0-9._+!~-]+)$/;
function validName(name) {
    try {
        checkProjectName(name);
        return true;
    }
    catch {
        return false;
    }
}
function validTarget(projectSegment, filenameSegment) {
    try {
        return fileTarget(projectSegment, filenameSegment);
    }
    catch {
        return null;
    }
}
export function fastPath(deps, parts, next) {
    if (deps.config.readAuth)
        return next;
    const { negotiate, smallBodies, record } = parts;
    const send = async (req, res, route, answer, trace, start) => {
        // Opens a file before anything is sent: a failure there hands the request over untouched.
        await sendRaw(res, answer, req.method === 'HEAD');
        const length = answer.headers.find(([name]) => name === 'Content-Length')?.[1];
        record(res, () => ({
            method: req.method,
            path: req.url,
            route,
            status: answer.status,
            code: undefined,
            cache: trace.cache ?? '',
            bytes: length === undefined ? undefined : Number(length) || undefined,
        }), start);
    };
    const page = async (req, res, requested, start) => {
        const trace = {};
        const lookup = deps.source.getProject(requested, trace);
        try {
            const found = await lookup;
            if (found) {
                const { headers } = req;
                const chosen = negotiate(undefined, headers.accept || undefined);
                const base = baseUrlFor(deps.config, headers.host);
                const request = { acceptEncoding: headers['accept-encoding'] || undefined, ifNoneMatch: headers['if-none-match'] || undefined, trace };
                return await send(req, res, '/simple/:project/', projectPageAnswer(deps, found, chosen, base, request), trace, start);
            }
        }
        catch {
            // The route answers errors.
        }
        parts.pages.give(req, { lookup, trace });
        next(req, res);
    };
    const file = async (req, res, target, start) => {
        const trace = {};
        const lookup = deps.source.openFile(target.project, target.filename, target.variant, trace);
        try {
            const body = await lookup;
            if (body?.kind === 'disk') {
                const get = (name) => req.headers[name];
                const answer = await diskFileAnswer(body, fileRequest(get, req.method === 'HEAD', trace), deps.config.readAuth, smallBodies);
                await send(req, res, '/packages/:project/:filename', answer, trace, start);
                if (trace.cache === 'hit' && req.method === 'GET') {
                    const bytes = Number(answer.headers.find(([name]) => name === 'Content-Length')?.[1] ?? 0);
                    res.once('finish', () => deps.metrics.cacheServedBytes.inc(bytes));
                }
                return;
            }
        }
        catch {
            // The route answers errors (a range that cannot be satisfied, a file that went away).
        }
        parts.files.give(req, { lookup, trace });
        next(req, res);
    };
    const failed = (res) => (err) => {
        deps.logger.error({ err }, 'fast path failed');
        res.destroy(err);
    };
    return (req, res) => {
        const url = req.url ?? '';
        if ((req.method === 'GET' || req.method === 'HEAD') && url.length < 512) {
            const start = process.hrtime.bigint();
            const pageMatch = PAGE.exec(url);
            if (pageMatch) {
                const requested = pageMatch[1];
                const name = validName(requested) ? normalizeName(requested) : null;
                if (name === requested) {
                    void page(req, res, name, start).catch(failed(res));
                    return;
                }
            }
            const fileMatch = FILE.exec(url);
            const target = fileMatch && validTarget(fileMatch[1], fileMatch[2]);
            if (target) {
                void file(req, res, target, start).catch(failed(res));
                return;
            }
        }
        next(req, res);
    };
}
