/**
 * Who may use the account and user pages: someone logged in with a password (a session cookie, or HTTP
 * Basic). Nobody is sent to the login form; an API token is refused, so that a token cannot mint other
 * tokens or change the password. The user pages also need an administrator.
 */
import type { Context } from 'koa';
import { forbidden } from '../base/errors.js';
import { checkedSession } from './forms.js';
import { sendPage } from './page-response.js';
import { renderRefusal } from './render/account.js';
import type { WebSession } from './session.js';
import { whoIsLooking, type Looker } from './viewer.js';
import type { WebContext } from './web-context.js';

const TOKEN_REFUSAL = 'API tokens cannot manage an account: log in with your user name and password.';
const ADMIN_REFUSAL = 'Only administrators may manage users.';

/** For a GET: the looker, or null when a redirect to the login form or a 403 page has been sent. */
export async function accountLooker(ctx: Context, web: WebContext, needAdmin = false): Promise<(Looker & { session: WebSession }) | null> {
  const looker = await whoIsLooking(ctx, web.signer, web.deps.http.authenticator);
  const { session } = looker;
  if (!session) {
    ctx.status = 303;
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(`/account/login/?next=${encodeURIComponent(ctx.path)}`);
    return null;
  }
  const refusal = session.identity.viaToken ? TOKEN_REFUSAL : needAdmin && !session.identity.admin ? ADMIN_REFUSAL : null;
  if (refusal) {
    sendPage(ctx, renderRefusal(refusal, looker.viewer, ctx.path), 403);
    return null;
  }
  return { ...looker, session };
}

/** For a POST: the session, when the form token is right and the login was a password's (else 403). */
export async function accountSession(ctx: Context, web: WebContext, needAdmin = false): Promise<WebSession> {
  const session = await checkedSession(ctx, web);
  if (session.identity.viaToken) throw forbidden('password_required', TOKEN_REFUSAL);
  if (needAdmin && !session.identity.admin) throw forbidden('not_admin', ADMIN_REFUSAL);
  return session;
}
