/**
 * A response worked out once and sent through either entry point: Koa's context (the routes) or the raw
 * Node response (the fast path). Both send the same status, headers and bytes.
 */
import { open } from 'node:fs/promises';
/**
 * Sends an answer on the raw response (the fast path). A file is opened before anything is written, so
 * a file that cannot be opened rejects with nothing sent.
 */
export async function sendRaw(res, answer, head) {
    const { body } = answer;
    const handle = head || body === null || Buffer.isBuffer(body) ? null : await open(body.path, 'r');
    const flat = [];
    for (const [name, value] of answer.headers)
        flat.push(name, value);
    res.writeHead(answer.status, flat);
    if (handle)
        pumpFile(res, handle, body);
    else if (head || body === null)
        res.end();
    else
        res.end(body);
}
/** Sends an answer through Koa (the routes). */
export async function sendThroughKoa(ctx, answer) {
    const { body } = answer;
    const head = ctx.method === 'HEAD';
    const handle = head || body === null || Buffer.isBuffer(body) ? null : await open(body.path, 'r');
    ctx.status = answer.status;
    for (const [name, value] of answer.headers)
        ctx.set(name, value);
    if (handle) {
        ctx.respond = false;
        pumpFile(ctx.res, handle, body);
    }
    else if (body === null) {
        // Koa would send a text of its own for a 200 without a body.
        if (answer.status !== 304 && !head)
            ctx.body = Buffer.alloc(0);
    }
    else if (!head) {
        ctx.body = body;
    }
}
const CHUNK = 1 << 20;
/**
 * Sends a slice of an open large file through two reused 1 MiB buffers: the next chunk is read while the
 * previous one is being written, and a buffer is refilled only once the socket has taken it.
 * (A read stream allocates a new buffer per chunk, and collecting them costs more than the copying.)
 */
function pumpFile(res, handle, { path, start, end }) {
    const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
    const inFlight = [null, null];
    const written = (buffer) => new Promise((resolve, reject) => res.write(buffer, (err) => (err ? reject(err) : resolve())));
    void (async () => {
        try {
            let position = start;
            for (let which = 0; position <= end && !res.destroyed; which ^= 1) {
                await inFlight[which];
                const buffer = buffers[which];
                const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, end - position + 1), position);
                if (bytesRead === 0)
                    throw new Error(`${path} is shorter than its record says`);
                position += bytesRead;
                inFlight[which] = written(buffer.subarray(0, bytesRead));
                inFlight[which].catch(() => { });
            }
            await Promise.all(inFlight);
            res.end();
        }
        catch (err) {
            res.destroy(err);
        }
        finally {
            await handle.close();
        }
    })();
}
