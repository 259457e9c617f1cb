/** The client-facing code of each kind (a time-out is a 504, everything else a 502). */
export const UPSTREAM_ERROR_CODES = {
    timeout: 'upstream_timeout',
    unreachable: 'upstream_unreachable',
    status: 'upstream_status',
    invalid: 'upstream_invalid',
    refused: 'upstream_refused',
};
export class UpstreamError extends Error {
    kind;
    status;
    constructor(message, kind, status) {
        super(message);
        this.kind = kind;
        this.status = status;
        this.name = 'UpstreamError';
    }
}
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
/** An error from undici or a socket, as an UpstreamError. */
export function classify(err) {
    if (err instanceof UpstreamError)
        return err;
    const e = (err ?? {});
    const code = e.code ?? '';
    const cause = e.cause?.code ?? '';
    const message = e.message ?? String(err);
    if (TIMEOUT_CODES.has(code) || TIMEOUT_CODES.has(cause))
        return new UpstreamError(`timed out (${code || cause})`, 'timeout');
    if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE')
        return new UpstreamError(message, 'invalid');
    return new UpstreamError(`${code || cause || 'connection failed'}: ${message}`, 'unreachable');
}
