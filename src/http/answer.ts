/**
 * A response worked out once and sent through either entry point: Koa's context (the routes) or the raw
 * Node response (the fast path). Both send the same status, headers and bytes.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context } from 'koa';

/** Bytes `start`..`end` (inclusive) of a file on disk. */
export interface FileSlice {
  path: string;
  start: number;
  end: number;
}

/** Bytes read from elsewhere (object storage): `open` rejects before any byte when they cannot be read. */
export interface StreamedBody {
  open: () => Promise<Readable>;
}

export interface Answer {
  status: number;
  /** In sending order; Content-Type and Content-Length included when there is a body. */
  headers: [string, string][];
  /** null: no body (304, or an empty file). A HEAD request never gets the body. */
  body: Buffer | FileSlice | StreamedBody | null;
}

type Opened = { handle: FileHandle; slice: FileSlice } | { stream: Readable };

/** The file or stream of an answer's body, opened; null when the body is a buffer or none is sent. */
async function openBody(answer: Answer, head: boolean): Promise<Opened | null> {
  const { body } = answer;
  if (head || body === null || Buffer.isBuffer(body)) return null;
  if ('open' in body) return { stream: await body.open() };
  return { handle: await open(body.path, 'r'), slice: body };
}

function pump(res: ServerResponse, opened: Opened): void {
  if ('stream' in opened) pipeline(opened.stream, res).catch((err: Error) => res.destroy(err));
  else pumpFile(res, opened.handle, opened.slice);
}

/**
 * Sends an answer on the raw response (the fast path). A file is opened before anything is written, so
 * a file that cannot be opened rejects with nothing sent.
 */
export async function sendRaw(res: ServerResponse, answer: Answer, head: boolean): Promise<void> {
  const file = await openBody(answer, head);
  const flat: string[] = [];
  for (const [name, value] of answer.headers) flat.push(name, value);
  res.writeHead(answer.status, flat);
  if (file) pump(res, file);
  else if (head || answer.body === null) res.end();
  else res.end(answer.body);
}

/** Sends an answer through Koa (the routes). */
export async function sendThroughKoa(ctx: Context, answer: Answer): Promise<void> {
  const { body } = answer;
  const head = ctx.method === 'HEAD';
  const file = await openBody(answer, head);
  ctx.status = answer.status;
  for (const [name, value] of answer.headers) ctx.set(name, value);
  if (file) {
    ctx.respond = false;
    pump(ctx.res, file);
  } else if (body === null) {
    // Koa would send a text of its own for a 200 without a body.
    if (answer.status !== 304 && !head) ctx.body = Buffer.alloc(0);
  } else if (!head) {
    ctx.body = body;
  }
}

const CHUNK = 1 << 20;

/**
 * Sends a slice of an open large file through two reused 1 MiB buffers: the next chunk is read while the
 * previous one is being written, and a buffer is refilled only once the socket has taken it.
 * (A read stream allocates a new buffer per chunk, and collecting them costs more than the copying.)
 */
function pumpFile(res: ServerResponse, handle: FileHandle, { path, start, end }: FileSlice): void {
  // A short slice (a range request) needs no more than its own length.
  const size = Math.min(CHUNK, end - start + 1);
  const buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  const inFlight: (Promise<void> | null)[] = [null, null];
  const written = (buffer: Buffer) => new Promise<void>((resolve, reject) => res.write(buffer, (err) => (err ? reject(err) : resolve())));
  void (async () => {
    try {
      let position = start;
      for (let which = 0; position <= end && !res.destroyed; which ^= 1) {
        await inFlight[which];
        const buffer = buffers[which]!;
        const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, end - position + 1), position);
        if (bytesRead === 0) throw new Error(`${path} is shorter than its record says`);
        position += bytesRead;
        inFlight[which] = written(buffer.subarray(0, bytesRead));
        inFlight[which]!.catch(() => {});
      }
      await Promise.all(inFlight);
      res.end();
    } catch (err) {
      res.destroy(err as Error);
    } finally {
      await handle.close();
    }
  })();
}
