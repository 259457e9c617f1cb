import { identify } from '../http/identity.js';
import { ANONYMOUS } from './render/layout.js';
import { SESSION_COOKIE } from './session.js';
export async function whoIsLooking(ctx, signer, authenticator) {
    let session = signer.verify(ctx.cookies.get(SESSION_COOKIE));
    if (!session) {
        const identity = await identify(ctx, authenticator);
        if (identity)
            session = { identity, nonce: null };
    }
    if (!session)
        return { session: null, viewer: ANONYMOUS };
    return { session, viewer: { user: session.identity.user, formToken: signer.formToken(session), viaBasic: session.nonce === null } };
}
/** A local path to return to after logging in; anything else (another site, `//host`) becomes `/`. */
export function localPath(next) {
    return typeof next === 'string' && /^\/(?![/\\])[^\s\\]*$/.test(next) && next.length <= 2000 ? next : '/';
}
export function sessionCookie(value, maxAgeMs, secure) {
    return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
