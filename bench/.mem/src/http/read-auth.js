import { requireIdentity } from './identity.js';
export function readAuthMiddleware(authenticator) {
    return async function requireReadCredentials(ctx, next) {
        if (ctx.path !== '/health')
            await requireIdentity(ctx, authenticator, 'read from this index');
        await next();
    };
}
