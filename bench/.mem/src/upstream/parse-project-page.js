import { parseSimpleHtml } from './parse-simple-html.js';
import { parseSimpleJson } from './parse-simple-json.js';
export const SIMPLE_JSON = 'application/vnd.pypi.simple.v1+json';
export const SIMPLE_HTML = 'application/vnd.pypi.simple.v1+html';
/** `text/html; charset=utf-8` → `text/html`. */
export function mediaTypeOf(contentType) {
    return contentType.split(';', 1)[0].trim().toLowerCase();
}
export function parseProjectPage(body, contentType, options) {
    const type = mediaTypeOf(contentType);
    if (type === SIMPLE_JSON)
        return parseSimpleJson(body, options);
    if (type === SIMPLE_HTML || type === 'text/html')
        return parseSimpleHtml(body, options);
    throw new Error(`${options.pageUrl}: unsupported Content-Type ${JSON.stringify(contentType)} for a project page`);
}
