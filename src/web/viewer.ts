/**
 * Who is looking at a web page: the session cookie, else HTTP Basic (or a token) in the Authorization
 * header, else nobody. With `LARDER_READ_AUTH=true` nobody is sent to the login form.
 */
import type { Context } from 'koa';
import type { Authenticator } from '../auth/authenticator.js';
import { identify } from '../http/identity.js';
import { ANONYMOUS, type Viewer } from './render/layout.js';
import { SESSION_COOKIE, type SessionSigner, type WebSession } from './session.js';

export interface Looker {
  session: WebSession | null;
  viewer: Viewer;
}

export async function whoIsLooking(ctx: Context, signer: SessionSigner, authenticator: Authenticator): Promise<Looker> {
  let session = await signer.verify(ctx.cookies.get(SESSION_COOKIE));
  if (!session) {
    const identity = await identify(ctx, authenticator);
    if (identity) session = { identity, nonce: null, endsAt: null };
  }
  if (!session) return { session: null, viewer: ANONYMOUS };
  return { session, viewer: viewerOf(session, signer) };
}

export function viewerOf(session: WebSession, signer: SessionSigner): Viewer {
  return { user: session.identity.user, formToken: signer.formToken(session), viaBasic: session.nonce === null };
}

/** A local path to return to after logging in; anything else (another site, `//host`) becomes `/`. */
export function localPath(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])[^\s\\]*$/.test(next) && next.length <= 2000 ? next : '/';
}

export function sessionCookie(value: string, maxAgeMs: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
