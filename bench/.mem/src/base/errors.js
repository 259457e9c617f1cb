/**
 * The one error type. `code` is one of the catalogue (src/error-catalogue.ts), which gives the status;
 * `message` is written for the person at the client: twine prints it verbatim from the reason phrase,
 * pip and curl users read it in the body.
 */
import { ERROR_CATALOGUE } from './error-catalogue.js';
export class LarderError extends Error {
    code;
    headers;
    body;
    contentType;
    status;
    constructor(code, message, headers = {}, 
    /** A body other than the plain-text message (e.g. the JSON API's `{"message": "Not Found"}`). */
    body, contentType) {
        super(message);
        this.code = code;
        this.headers = headers;
        this.body = body;
        this.contentType = contentType;
        this.name = 'LarderError';
        this.status = ERROR_CATALOGUE[code].status;
    }
}
export const badRequest = (code, message) => new LarderError(code, message);
export const notFound = (message = 'Not Found', code = 'not_found') => new LarderError(code, message);
export const conflict = (code, message) => new LarderError(code, message);
export const forbidden = (code, message) => new LarderError(code, message);
export const unauthorized = (message) => new LarderError('unauthorized', message, { 'WWW-Authenticate': 'Basic realm="larder"' });
