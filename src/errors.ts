/**
 * The one error type. `message` is written for the person at the client: twine prints it verbatim
 * from the reason phrase, pip and curl users read it in the body.
 */
export class LarderError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** A body other than the plain-text message (e.g. the JSON API's `{"message": "Not Found"}`). */
    readonly body?: string,
    readonly contentType?: string,
  ) {
    super(message);
    this.name = 'LarderError';
  }
}

export const badRequest = (code: string, message: string) => new LarderError(400, code, message);
export const notFound = (message = 'Not Found', code = 'not_found') => new LarderError(404, code, message);
export const conflict = (code: string, message: string) => new LarderError(409, code, message);
export const forbidden = (code: string, message: string) => new LarderError(403, code, message);
export const unauthorized = (message: string) =>
  new LarderError(401, 'unauthorized', message, { 'WWW-Authenticate': 'Basic realm="larder"' });
