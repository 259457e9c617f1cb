/**
 * The `upstream` source: a remote simple index over HTTP, uncached. Project pages are asked for as
 * PEP 691 JSON (HTML accepted), the JSON API is read when the upstream has one, files are streamed.
 * It also offers conditional fetches (ETag / Last-Modified) for the `cached` source that wraps it.
 */
import { LarderError } from '../../base/errors.js';
import { UpstreamError } from '../../upstream/client.js';
import { classify, UPSTREAM_ERROR_CODES } from '../../upstream/upstream-error.js';
import { parseJsonApi, parseReleaseJson } from '../../upstream/parse-json-api.js';
import { parseProjectPage } from '../../upstream/parse-project-page.js';
import { parseRootHtmlBatches, parseRootJsonBatches } from '../../upstream/parse-root.js';
import { boundedBody, readText } from '../../upstream/read-body.js';
export const PAGE_ACCEPT = 'application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01';
/** The largest project page or JSON document larder reads (decoded); pypi.org's largest are a few MB. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** The largest project list larder reads (decoded); pypi.org's, 700,000 names, is about 40 MB. */
export const MAX_ROOT_BYTES = 256 * 1024 * 1024;
function conditionalHeaders(validators) {
    const headers = {};
    if (validators?.etag)
        headers['if-none-match'] = validators.etag;
    if (validators?.lastModified)
        headers['if-modified-since'] = validators.lastModified;
    return headers;
}
function validatorsOf(res) {
    const v = {};
    if (res.headers.etag)
        v.etag = res.headers.etag;
    if (res.headers['last-modified'])
        v.lastModified = res.headers['last-modified'];
    return v;
}
function headerSerial(res) {
    const value = Number(res.headers['x-pypi-last-serial']);
    return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}
async function unexpected(res) {
    await res.body.dump().catch(() => { });
    throw new UpstreamError(`answered ${res.status} for ${res.url}`, 'status', res.status);
}
export class UpstreamSource {
    client;
    options;
    indexUrl;
    jsonApiUrl;
    constructor(client, options) {
        this.client = client;
        this.options = options;
        this.indexUrl = options.indexUrl;
        this.jsonApiUrl = options.jsonApiUrl;
    }
    projectUrl(name) {
        return new URL(`${encodeURIComponent(name)}/`, this.indexUrl).toString();
    }
    /**
     * The conditional GET every document shares: 304 → not-modified, 404/410 → not-found, 200 → the body
     * parsed by `parse` (a parse failure is the upstream's fault), anything else → an error.
     */
    async fetchDocument(url, accept, validators, what, parse) {
        const res = await this.client.get(url, {
            headers: { accept, ...conditionalHeaders(validators) },
            deadline: this.options.deadline,
            decode: true,
        });
        if (res.status === 304 || res.status === 404 || res.status === 410) {
            await res.body.dump().catch(() => { });
            return { status: res.status === 304 ? 'not-modified' : 'not-found' };
        }
        if (res.status !== 200)
            return unexpected(res);
        const text = await readText(res, this.options.maxDocumentBytes ?? MAX_DOCUMENT_BYTES, what);
        let value;
        try {
            value = parse(text, res);
        }
        catch (err) {
            throw new UpstreamError(`sent ${what} larder cannot read: ${err.message}`, 'invalid');
        }
        return { status: 'ok', value, validators: validatorsOf(res) };
    }
    fetchProject(name, validators) {
        const url = this.projectUrl(name);
        return this.fetchDocument(url, PAGE_ACCEPT, validators, 'a project page', (text, res) => {
            const page = parseProjectPage(text, res.headers['content-type'] ?? '', { pageUrl: url, headerSerial: headerSerial(res), projectName: name });
            return { ...page, name, origin: 'upstream' };
        });
    }
    /** The JSON API document; not-found also when the upstream has no JSON API (the caller builds one). */
    async fetchReleases(name, validators) {
        if (!this.jsonApiUrl)
            return { status: 'not-found' };
        const url = new URL(`${encodeURIComponent(name)}/json`, this.jsonApiUrl).toString();
        return this.fetchDocument(url, 'application/json', validators, 'a JSON API document', (text, res) => ({
            ...parseJsonApi(text, { pageUrl: url, headerSerial: headerSerial(res) }),
            name,
        }));
    }
    /** `/pypi/<p>/<v>/json`: one release's own metadata. */
    async fetchRelease(name, version, validators) {
        if (!this.jsonApiUrl)
            return { status: 'not-found' };
        const url = new URL(`${encodeURIComponent(name)}/${encodeURIComponent(version)}/json`, this.jsonApiUrl).toString();
        return this.fetchDocument(url, 'application/json', validators, 'a JSON API document', (text, res) => parseReleaseJson(text, { pageUrl: url, headerSerial: headerSerial(res) }));
    }
    /** The root list, parsed as it streams in. */
    async fetchRoot(validators) {
        const res = await this.client.get(this.indexUrl, {
            headers: { accept: PAGE_ACCEPT, ...conditionalHeaders(validators) },
            deadline: this.options.rootDeadline,
            decode: true,
        });
        if (res.status === 304) {
            await res.body.dump().catch(() => { });
            return { status: 'not-modified' };
        }
        if (res.status !== 200)
            return unexpected(res);
        const type = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        const body = () => boundedBody(res, this.options.maxRootBytes ?? MAX_ROOT_BYTES, 'a project list');
        const entries = type === 'application/vnd.pypi.simple.v1+json'
            ? parseRootJsonBatches(body())
            : type === 'text/html' || type === 'application/vnd.pypi.simple.v1+html'
                ? parseRootHtmlBatches(body())
                : null;
        if (!entries) {
            await res.body.dump().catch(() => { });
            throw new UpstreamError(`sent the project list as ${JSON.stringify(type)}, which is not a simple index type`, 'invalid');
        }
        return { status: 'ok', entries, validators: validatorsOf(res), serial: headerSerial(res) };
    }
    /** Starts a file download (no total deadline: only the idle time-out); the caller consumes or dumps the body. */
    async download(url, signal) {
        return this.client.get(url, { signal });
    }
    /** The client-facing error for an upstream that failed with no cached copy to fall back on. */
    failure(what, err) {
        const e = classify(err);
        return new LarderError(UPSTREAM_ERROR_CODES[e.kind], `The upstream index ${this.indexUrl} failed for ${what} and larder has no cached copy: ${e.message}.`);
    }
}
