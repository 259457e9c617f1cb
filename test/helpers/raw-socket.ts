/**
 * One HTTP request over a bare TCP socket, returning exactly the bytes the server sent (status line, headers,
 * framing, anything after the body), how the exchange ended, and when each piece arrived.
 */
import { connect } from 'node:net';

export interface RawExchange {
  /** Every byte received, head included. */
  data: Buffer;
  /** The head up to (not including) the blank line; '' if it never completed. */
  head: string;
  statusLine: string;
  /** Lower-cased header names → values (the last of repeated ones). */
  headers: Record<string, string>;
  /** What followed the head, framing (chunk sizes) included. */
  body: Buffer;
  /**
   * `eof`: the server closed cleanly; `reset`: the connection was reset; `idle`: nothing arrived for `idleMs`;
   * `total`: `totalMs` passed; `limit`: `maxBytes` (or `bodyBytes`) arrived. In the last three the client closed the socket.
   */
  ended: 'eof' | 'reset' | 'idle' | 'total' | 'limit';
  /** Milliseconds from the request to the end. */
  ms: number;
  /** [ms since the request, bytes] for each piece received. */
  arrivals: [number, number][];
}

export interface RawRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Default `1.1`. */
  httpVersion?: '1.0' | '1.1';
  /** Raw text sent instead of a request built from the other options (pipelining, garbage…). */
  rawRequest?: string;
  /** Give up after this much silence. Default 5000. */
  idleMs?: number;
  /** Give up after this long in all. Default 30000. */
  totalMs?: number;
  /** Close the socket once this many bytes have arrived. */
  maxBytes?: number;
  /** Close the socket once this many bytes of body (what follows the head) have arrived. */
  bodyBytes?: number;
}

function parseHead(data: Buffer): Pick<RawExchange, 'head' | 'statusLine' | 'headers' | 'body'> {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return { head: '', statusLine: '', headers: {}, body: Buffer.alloc(0) };
  const head = data.subarray(0, end).toString('latin1');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { head, statusLine, headers, body: data.subarray(end + 4) };
}

export function rawRequest(url: string, opts: RawRequestOptions = {}): Promise<RawExchange> {
  const target = new URL(url);
  const request =
    opts.rawRequest ??
    [
      `${opts.method ?? 'GET'} ${target.pathname}${target.search} HTTP/${opts.httpVersion ?? '1.1'}`,
      `Host: ${target.host}`,
      ...Object.entries(opts.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n');
  const start = Date.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const arrivals: [number, number][] = [];
    let received = 0;
    let settled = false;
    const socket = connect(Number(target.port), target.hostname);
    const finish = (ended: RawExchange['ended']) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      socket.destroy();
      const data = Buffer.concat(chunks);
      resolve({ data, ...parseHead(data), ended, ms: Date.now() - start, arrivals });
    };
    const total = setTimeout(() => finish('total'), opts.totalMs ?? 30_000);
    socket.setTimeout(opts.idleMs ?? 5000, () => finish('idle'));
    socket.on('connect', () => socket.write(request, 'latin1'));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      arrivals.push([Date.now() - start, chunk.length]);
      if (opts.maxBytes !== undefined && received >= opts.maxBytes) finish('limit');
      if (opts.bodyBytes !== undefined && parseHead(Buffer.concat(chunks)).body.length >= opts.bodyBytes) finish('limit');
    });
    socket.on('end', () => finish('eof'));
    socket.on('error', () => finish('reset'));
    socket.on('close', () => finish('eof'));
  });
}

/** The payload of a chunked body (throws on bad framing; stops at the last chunk or the end of data). */
export function dechunk(body: Buffer): { payload: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol === -1) return { payload: Buffer.concat(parts), complete: false };
    const size = Number.parseInt(body.subarray(at, eol).toString('latin1'), 16);
    if (Number.isNaN(size)) throw new Error(`bad chunk size at ${at}`);
    if (size === 0) return { payload: Buffer.concat(parts), complete: true };
    parts.push(body.subarray(eol + 2, Math.min(eol + 2 + size, body.length)));
    if (eol + 2 + size + 2 > body.length) return { payload: Buffer.concat(parts), complete: false };
    at = eol + 2 + size + 2;
  }
}
