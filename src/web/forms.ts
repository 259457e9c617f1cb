/** What the POST routes of the web pages share: the form body, its fields, and the session check behind every change. */
import type { Context } from 'koa';
import { forbidden } from '../base/errors.js';
import { bodyParser } from '../http/request-body.js';
import type { WebSession } from './session.js';
import { whoIsLooking } from './viewer.js';
import type { WebContext } from './web-context.js';

export const formBody = bodyParser({ urlencoded: true, json: false, multipart: false, text: false, formLimit: '16kb' });

function body(ctx: Context): Record<string, unknown> {
  const parsed = ctx.request.body as unknown;
  return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
}

/** A single form field ('' when absent or repeated). */
export function field(ctx: Context, name: string): string {
  const value = body(ctx)[name];
  return typeof value === 'string' ? value : '';
}

/** Every value of a repeated field (checkboxes). Past 20 repeats the body parser makes an object of them. */
export function fields(ctx: Context, name: string): string[] {
  const value = body(ctx)[name];
  if (typeof value === 'string') return [value];
  const values = Array.isArray(value) ? value : value && typeof value === 'object' ? Object.values(value) : [];
  return values.filter((v): v is string => typeof v === 'string');
}

export const forged = () =>
  forbidden('invalid_form_token', "This form was not sent from this site's own page, or the login behind it has ended; reload the page and try again.");

/** The session of a POSTed form, when its form token is right; else 403. */
export async function checkedSession(ctx: Context, web: WebContext): Promise<WebSession> {
  const { session } = await whoIsLooking(ctx, web.signer, web.deps.http.authenticator);
  if (!session || !web.signer.checkFormToken(session, field(ctx, 'csrf'))) throw forged();
  return session;
}

/** Should cookies be `Secure`: the request or the public URL is https. */
export function secureRequest(ctx: Context, web: WebContext): boolean {
  return ctx.protocol === 'https' || (web.deps.http.config.publicUrl?.startsWith('https:') ?? false);
}
