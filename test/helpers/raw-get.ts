/** One raw HTTP request (no redirects, no decompression, no pooling), for tests that look at exact bytes and failures. */
import { request, type IncomingHttpHeaders } from 'node:http';

/** The Accept header pip sends for simple pages. */
export const PIP_ACCEPT = 'application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01';

export interface Got {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Set when the body ended badly (aborted, cut short, reset) after the head arrived. */
  error?: Error;
  /** The client gave up (`timeoutMs`) after the head arrived: the server had not ended the body by then. */
  clientTimedOut: boolean;
  ms: number;
}

/** Rejects only when no response head arrives (refused, reset, timed out). */
export function rawGet(url: string, opts: { headers?: Record<string, string>; method?: string; timeoutMs?: number } = {}): Promise<Got> {
  const start = Date.now();
  const timeoutMs = opts.timeoutMs ?? 15_000;
  let clientTimedOut = false;
  return new Promise((resolve, reject) => {
    let onBodyError: ((err: Error) => void) | null = null;
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let settled = false;
      const done = (error?: Error) => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), error, clientTimedOut, ms: Date.now() - start });
      };
      onBodyError = done;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(res.complete ? undefined : new Error('incomplete response')));
      res.on('error', (err) => done(err));
      res.on('aborted', () => done(new Error('aborted')));
    });
    req.setTimeout(timeoutMs, () => {
      clientTimedOut = true;
      req.destroy(Object.assign(new Error(`client timeout after ${timeoutMs} ms: ${url}`), { code: 'TIMEOUT' }));
    });
    req.on('error', (err) => (onBodyError ? onBodyError(err) : reject(err)));
    req.end();
  });
}
