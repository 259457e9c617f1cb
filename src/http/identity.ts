/**
 * Who is asking: credentials from the Authorization header → Identity, with 401/403 as docs/uploads.md says,
 * 429 after too many failed logins from the connection's address (proxy headers are not trusted).
 */
import type { Context } from 'koa';
import type { Authenticator, Identity } from '../auth/authenticator.js';
import { parseAuthorization } from '../auth/credentials.js';
import { forbidden, unauthorized } from '../base/errors.js';

export async function identify(ctx: Context, authenticator: Authenticator): Promise<Identity | null> {
  const header = ctx.get('Authorization');
  if (!header) return null;
  const identity = await authenticator.authenticate(parseAuthorization(header), ctx.ip);
  if (!identity) {
    throw forbidden(
      'invalid_credentials',
      'Invalid or non-existent authentication information: check the user name and password, or the API token (user name __token__).',
    );
  }
  return identity;
}

export async function requireIdentity(ctx: Context, authenticator: Authenticator, action: string): Promise<Identity> {
  const identity = await identify(ctx, authenticator);
  if (!identity) throw unauthorized(`Credentials are required to ${action}.`);
  return identity;
}
