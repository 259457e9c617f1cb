/**
 * Who is asking: credentials from the Authorization header → Identity, with 401/403 as docs/uploads.md says,
 * 429 after too many failed logins from the connection's address (proxy headers are not trusted).
 */
import type { Context } from 'koa';
import type { Authenticator, Identity } from '../auth/authenticator.js';
import { parseAuthorization } from '../auth/credentials.js';
import { forbidden, unauthorized } from '../base/errors.js';

export function identify(ctx: Context, authenticator: Authenticator): Promise<Identity | null> {
  return identifyBy(ctx.get('Authorization'), ctx.ip, authenticator);
}

/** `identify` from the Authorization header and the connection's address (on the hot routes, without Koa). */
export async function identifyBy(header: string | undefined, ip: string, authenticator: Authenticator): Promise<Identity | null> {
  if (!header) return null;
  const identity = await authenticator.authenticate(parseAuthorization(header), ip);
  if (!identity) {
    throw forbidden(
      'invalid_credentials',
      'Invalid or non-existent authentication information: check the user name and password, or the API token (user name __token__).',
    );
  }
  return identity;
}

export function requireIdentity(ctx: Context, authenticator: Authenticator, action: string): Promise<Identity> {
  return requireIdentityBy(ctx.get('Authorization'), ctx.ip, authenticator, action);
}

export async function requireIdentityBy(header: string | undefined, ip: string, authenticator: Authenticator, action: string): Promise<Identity> {
  const identity = await identifyBy(header, ip, authenticator);
  if (!identity) throw unauthorized(`Credentials are required to ${action}.`);
  return identity;
}
