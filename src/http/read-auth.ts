/** With LARDER_READ_AUTH=true every request but /health needs valid credentials: on Koa's routes and the hot ones alike. */
import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import type { Authenticator, Identity } from '../auth/authenticator.js';
import { requireIdentityBy } from './identity.js';

const ACTION = 'read from this index';

export function readAuthMiddleware(authenticator: Authenticator) {
  return async function requireReadCredentials(ctx: Context, next: Next): Promise<void> {
    if (ctx.path !== '/health') await requireIdentityBy(ctx.get('Authorization'), ctx.ip, authenticator, ACTION);
    await next();
  };
}

/** The same check on a raw request (the hot routes): its Authorization header and the connection's address, as Koa's `ctx.ip`. */
export function requireReader(req: IncomingMessage, authenticator: Authenticator): Promise<Identity> {
  return requireIdentityBy(req.headers.authorization, req.socket.remoteAddress ?? '', authenticator, ACTION);
}
