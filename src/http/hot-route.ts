/**
 * The hot routes (project pages, files, the JSON API): plain functions from a request to an `Answer`, with
 * no Koa context, entered by `entry.ts` and sent by its one writer. Every outcome is an answer or a thrown
 * error, which the entry answers as the error middleware does.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import Negotiator from 'negotiator';
import type { Identity } from '../auth/authenticator.js';
import { LarderError } from '../base/errors.js';
import type { Answer } from './answer.js';
import { INDEX_CORS_HEADERS } from './respond.js';

export interface HotRequest {
  head: boolean;
  /** The route's path parameters, decoded. */
  params: Record<string, string>;
  /** The query string, without its '?' ('' when none). */
  query: string;
  headers: IncomingHttpHeaders;
  /** The connection's own side, for answers built from the request's Host (`requestBaseUrl`). */
  req: IncomingMessage;
  /** Who read authentication proved the request is from; null when reads need no credentials. */
  reader: Identity | null;
}

export type HotHandler = (request: HotRequest) => Promise<Answer>;

/** A request header, undefined when absent or empty. */
export function header(request: HotRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The `format` query parameter, when given exactly once. */
export function formatParam(request: HotRequest): string | undefined {
  if (request.query === '') return undefined;
  const values = new URLSearchParams(request.query).getAll('format');
  return values.length === 1 ? values[0] : undefined;
}

/** The same error with more headers in front of its own (those of the lookup that failed, e.g. X-Larder-Cache). */
export function withHeaders(err: LarderError, headers: [string, string][]): LarderError {
  if (headers.length === 0) return err;
  return new LarderError(err.code, err.message, { ...Object.fromEntries(headers), ...err.headers }, err.body, err.contentType);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** A permanent redirect to `path` (the request's query kept), with the index's CORS headers; the body as Koa's. */
export function redirectAnswer(request: HotRequest, path: string): Answer {
  const location = `${path}${request.query ? `?${request.query}` : ''}`.replace(/[^!-~]/g, encodeURIComponent);
  const html = new Negotiator(request).mediaType(['text/html']) !== undefined;
  const body = Buffer.from(`Redirecting to ${html ? location.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!) : location}.`);
  return {
    status: 301,
    headers: [
      ...INDEX_CORS_HEADERS,
      ['Location', location],
      ['Content-Type', `text/${html ? 'html' : 'plain'}; charset=utf-8`],
      ['Content-Length', String(body.length)],
    ],
    body,
  };
}
