/** Picks the project-page parser by the response's Content-Type (PEP 691 media types). */
import type { ProjectPage } from '../model/documents.js';
import { parseSimpleHtml, parseSimpleHtmlStream } from './parse-simple-html.js';
import { parseSimpleJson, parseSimpleJsonStream } from './parse-simple-json.js';
import type { SimplePageOptions } from './simple-common.js';

export type { SimplePageOptions } from './simple-common.js';

export const SIMPLE_JSON = 'application/vnd.pypi.simple.v1+json';
export const SIMPLE_HTML = 'application/vnd.pypi.simple.v1+html';

/** `text/html; charset=utf-8` → `text/html`. */
export function mediaTypeOf(contentType: string): string {
  return contentType.split(';', 1)[0]!.trim().toLowerCase();
}

export function parseProjectPage(body: string, contentType: string, options: SimplePageOptions): ProjectPage {
  const type = mediaTypeOf(contentType);
  if (type === SIMPLE_JSON) return parseSimpleJson(body, options);
  if (type === SIMPLE_HTML || type === 'text/html') return parseSimpleHtml(body, options);
  throw unsupported(contentType, options);
}

/** parseProjectPage for a body that arrives in pieces; an unsupported type is refused before any is read. */
export function parseProjectPageStream(chunks: AsyncIterable<Uint8Array | string>, contentType: string, options: SimplePageOptions): Promise<ProjectPage> {
  const type = mediaTypeOf(contentType);
  if (type === SIMPLE_JSON) return parseSimpleJsonStream(chunks, options);
  if (type === SIMPLE_HTML || type === 'text/html') return parseSimpleHtmlStream(chunks, options);
  return Promise.reject(unsupported(contentType, options));
}

function unsupported(contentType: string, options: SimplePageOptions): Error {
  return new Error(`${options.pageUrl}: unsupported Content-Type ${JSON.stringify(contentType)} for a project page`);
}
