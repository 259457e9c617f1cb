/** With LARDER_READ_AUTH=true every request but /health needs valid credentials. */
import type { Context, Next } from 'koa';
import type { Authenticator } from '../auth/authenticator.js';
import { requireIdentity } from './identity.js';

export function readAuthMiddleware(authenticator: Authenticator) {
  return async function requireReadCredentials(ctx: Context, next: Next): Promise<void> {
    if (ctx.path !== '/health') await requireIdentity(ctx, authenticator, 'read from this index');
    await next();
  };
}
