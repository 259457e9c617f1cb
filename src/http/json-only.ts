/**
 * The admin API (/api/) reads JSON only. A body of any other type (form-encoded, multipart, text/plain: the
 * types a form on another site can send) is refused with 415 rather than read as empty; a request without
 * a body (a yank without a reason, a DELETE) needs no Content-Type.
 */
import type { Context, Next } from 'koa';
import { LarderError } from '../base/errors.js';

function hasBody(ctx: Context): boolean {
  const length = ctx.get('Content-Length');
  return ctx.get('Transfer-Encoding') !== '' || (length !== '' && length !== '0');
}

export async function jsonOnly(ctx: Context, next: Next): Promise<void> {
  const type = ctx.get('Content-Type');
  const mediaType = type.split(';')[0]!.trim().toLowerCase();
  if (type !== '' ? mediaType !== 'application/json' : hasBody(ctx)) {
    const sent = type === '' ? 'a body without a Content-Type' : `Content-Type ${type.slice(0, 100)}`;
    throw new LarderError(
      'unsupported_media_type',
      `The admin API reads JSON only, and this request has ${sent}: send Content-Type: application/json, or no body.`,
    );
  }
  await next();
}
