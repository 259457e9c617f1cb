/**
 * A response as a value (status, headers, body), as the hot routes return it, and the one writer that
 * sends it on the raw Node response (`writeAnswer`).
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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
  /** The reason phrase, when not the status's own (an error's one-line message: twine prints it). */
  reason?: string;
  /** In sending order; Content-Type and Content-Length included when there is a body. */
  headers: [string, string][];
  /** null: no body (304, or an empty file). A HEAD request never gets the body. */
  body: Buffer | FileSlice | StreamedBody | null;
  /** Called once the whole answer has been sent (e.g. to count bytes served from the cache). */
  sent?: () => void;
}

type Opened = { handle: FileHandle; slice: FileSlice } | { stream: Readable };

/** The file or stream of an answer's body, opened; null when the body is a buffer or none is sent. */
async function openBody(answer: Answer, head: boolean): Promise<Opened | null> {
  const { body } = answer;
  if (head || body === null || Buffer.isBuffer(body)) return null;
  if ('open' in body) return { stream: await body.open() };
  return { handle: await open(body.path, 'r'), slice: body };
}

/** Where a body that fails after the head was sent is reported (the response is then cut short). */
export type SendFailure = (err: Error) => void;

function pump(res: ServerResponse, opened: Opened, failed: SendFailure): void {
  const fail = (err: Error) => {
    failed(err);
    res.destroy(err);
  };
  if ('stream' in opened) pipeline(opened.stream, res).catch(fail);
  else pumpFile(res, opened.handle, opened.slice, fail);
}

/**
 * Sends an answer on the raw response. A file or stream is opened before anything is written, so one
 * that cannot be opened rejects with nothing sent (and the caller answers the error instead).
 */
export async function writeAnswer(res: ServerResponse, answer: Answer, head: boolean, failed: SendFailure): Promise<void> {
  const file = await openBody(answer, head);
  const flat: string[] = [];
  for (const [name, value] of answer.headers) flat.push(name, value);
  if (answer.reason === undefined) res.writeHead(answer.status, flat);
  else res.writeHead(answer.status, answer.reason, flat);
  if (file) pump(res, file, failed);
  else if (head || answer.body === null) res.end();
  else res.end(answer.body);
}

const CHUNK = 1 << 20;

/**
 * Sends a slice of an open large file through two reused 1 MiB buffers: the next chunk is read while the
 * previous one is being written, and a buffer is refilled only once the socket has taken it.
 * (A read stream allocates a new buffer per chunk, and collecting them costs more than the copying.)
 */
function pumpFile(res: ServerResponse, handle: FileHandle, { path, start, end }: FileSlice, fail: (err: Error) => void): void {
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
      fail(err as Error);
    } finally {
      await handle.close();
    }
  })();
}
