/**
 * The Host header a request may carry: exactly one, of the form host[:port] (a DNS name, an IPv4 address or
 * a bracketed IPv6 address, then an optional numeric port), or none on HTTP/1.0. Any other request is
 * answered 400 before any route sees it. Nothing larder keeps or shares depends on Host
 * (links are relative unless LARDER_PUBLIC_URL is set); a valid Host only fills in absolute URLs of answers
 * no cache shares (`requestBaseUrl` in respond.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIPv6 } from 'node:net';
import { LarderError } from '../base/errors.js';
import { reasonPhrase } from './error-middleware.js';
import type { RequestRecorder } from './request-log.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A DNS label; `_` too, as in container and compose service names (RFC 3986 reg-name allows it). */
const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const DNS_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`);
const MAX_NAME = 253;
const PORT = /^[0-9]{1,5}$/;
/** How much of a refused value the message quotes. */
const QUOTED = 80;

const SHAPE = 'host[:port]: a DNS name, an IPv4 address or a [bracketed] IPv6 address, and an optional numeric port';

/** True for `host[:port]` as described above. */
function isValidHost(value: string): boolean {
  let host = value;
  let port: string | null = null;
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close === -1) return false;
    host = value.slice(0, close + 1);
    const rest = value.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return false;
      port = rest.slice(1);
    }
    if (!isIPv6(host.slice(1, -1))) return false;
  } else {
    const colon = value.indexOf(':');
    if (colon !== -1) {
      host = value.slice(0, colon);
      port = value.slice(colon + 1);
    }
    if (host.length > MAX_NAME || !DNS_NAME.test(host)) return false;
  }
  return port === null || (PORT.test(port) && Number(port) <= 65_535);
}

/** The request's Host (null when an HTTP/1.0 request sends none), or why the request is refused. */
export function hostOf(req: IncomingMessage): { host: string | null } | { refusal: string } {
  // Node keeps the first of several Host headers in `req.headers`: the raw list tells how many came.
  const raw = req.rawHeaders;
  let count = 0;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') {
      count++;
      value ??= raw[i + 1];
    }
  }
  if (count > 1) return { refusal: `The request has ${count} Host headers; send exactly one (${SHAPE}).` };
  if (value === undefined || (value === '' && req.httpVersion === '1.0')) return { host: null };
  if (value === '') return { refusal: `The Host header is empty; send ${SHAPE}.` };
  if (!isValidHost(value)) {
    const quoted = JSON.stringify(value.length > QUOTED ? `${value.slice(0, QUOTED)}…` : value);
    return { refusal: `The Host header ${quoted} is not ${SHAPE}.` };
  }
  return { host: value };
}

/** Answers a request with a duplicate or malformed Host 400 (recorded like any other request); passes the rest on. */
export function hostGate(next: Handler, record: RequestRecorder): Handler {
  return (req, res) => {
    const found = hostOf(req);
    if ('host' in found) return next(req, res);
    const err = new LarderError('invalid_host', found.refusal);
    const body = `${err.message}\n`;
    record(res, () => ({
      method: req.method ?? '',
      path: (req.url ?? '').split('?', 1)[0]!,
      route: 'unmatched',
      code: err.code,
      cache: '',
      bytes: Buffer.byteLength(body),
    }));
    // The request's body, if any, is not read: the connection is closed after the answer.
    res.shouldKeepAlive = false;
    res.writeHead(err.status, reasonPhrase(err.message), {
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      Connection: 'close',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
