/**
 * The one error type. `code` is one of the catalogue (src/error-catalogue.ts), which gives the status;
 * `message` is written for the person at the client: twine prints it verbatim from the reason phrase,
 * pip and curl users read it in the body.
 */
import { ERROR_CATALOGUE, type CodeWithStatus, type ErrorCode } from './error-catalogue.js';

export type { ErrorCode } from './error-catalogue.js';

export class LarderError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    /** A body other than the plain-text message (e.g. the JSON API's `{"message": "Not Found"}`). */
    readonly body?: string,
    readonly contentType?: string,
  ) {
    super(message);
    this.name = 'LarderError';
    this.status = ERROR_CATALOGUE[code].status;
  }
}

export const badRequest = (code: CodeWithStatus<400>, message: string) => new LarderError(code, message);
export const notFound = (message = 'Not Found', code: CodeWithStatus<404> = 'not_found') => new LarderError(code, message);
export const conflict = (code: CodeWithStatus<409>, message: string) => new LarderError(code, message);
export const forbidden = (code: CodeWithStatus<403>, message: string) => new LarderError(code, message);
export const unauthorized = (message: string) => new LarderError('unauthorized', message, { 'WWW-Authenticate': 'Basic realm="larder"' });
