import { parseAuthorization } from '../auth/credentials.js';
import { forbidden, unauthorized } from '../base/errors.js';
export async function identify(ctx, authenticator) {
    const header = ctx.get('Authorization');
    if (!header)
        return null;
    const identity = await authenticator.authenticate(parseAuthorization(header), ctx.ip);
    if (!identity) {
        throw forbidden('invalid_credentials', 'Invalid or non-existent authentication information: check the user name and password, or the API token (user name __token__).');
    }
    return identity;
}
export async function requireIdentity(ctx, authenticator, action) {
    const identity = await identify(ctx, authenticator);
    if (!identity)
        throw unauthorized(`Credentials are required to ${action}.`);
    return identity;
}
