/** Reading an upstream body within a bound: whole (documents) or as it streams (the project list). */
import { formatBytes } from '../base/units.js';
import { UpstreamError } from './upstream-error.js';
const tooLarge = (what, limit) => new UpstreamError(`sent ${what} larger than ${formatBytes(limit)}`, 'invalid');
/**
 * Stops reading a body. undici's body emits an 'error' when destroyed before its end, which would be an
 * uncaught exception with no listener: one is attached first.
 */
export function discard(res) {
    res.body.on('error', () => { });
    res.body.destroy();
}
/** The body as it arrives, failing once more than `limit` bytes have come (after decoding). */
export async function* boundedBody(res, limit, what) {
    const declared = Number(res.headers['content-length']);
    if (!res.headers['content-encoding'] && declared > limit) {
        discard(res);
        throw tooLarge(what, limit);
    }
    let size = 0;
    try {
        for await (const chunk of res.body) {
            size += chunk.length;
            if (size > limit)
                throw tooLarge(what, limit);
            yield chunk;
        }
    }
    catch (err) {
        throw res.describe(err);
    }
    finally {
        if (!res.body.destroyed)
            discard(res);
    }
}
export async function readText(res, limit, what) {
    const chunks = [];
    for await (const chunk of boundedBody(res, limit, what))
        chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
}
