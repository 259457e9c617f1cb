/**
 * `POST /account/password/`: a signed-in user changes their password. The current password is checked as
 * a login is (the same failed-login limits and 429). The new hash changes the user record's fingerprint,
 * which every session cookie carries, so every other session of the user ends at once (on every node);
 * the browser that made the change gets a fresh session and stays logged in.
 */
import type { Routes } from '../http/route-group.js';
import { MAX_PASSWORD_LENGTH, newPasswordProblem } from '../auth/user-rules.js';
import { LarderError } from '../base/errors.js';
import { accountSession } from './account-access.js';
import { sendAccount } from './account-page.js';
import { field, formBody, secureRequest } from './forms.js';
import { SESSION_LIFETIME_MS } from './session.js';
import { sessionCookie, viewerOf } from './viewer.js';
import type { WebContext } from './web-context.js';

export function registerPasswordRoutes(router: Routes, web: WebContext): void {
  const { meta, authenticator } = web.deps.http;

  router.post('/account/password/', formBody, async (ctx) => {
    const session = await accountSession(ctx, web);
    const { user } = session.identity;
    const who = { identity: session.identity, viewer: viewerOf(session, web.signer) };
    const refuse = (message: string, status: number) => sendAccount(ctx, web, who, { problem: { form: 'password', message } }, status);

    // One character over the limit is enough to refuse a password that is too long.
    const current = field(ctx, 'current').slice(0, MAX_PASSWORD_LENGTH + 1);
    const wanted = field(ctx, 'password').slice(0, MAX_PASSWORD_LENGTH + 1);
    const problem = newPasswordProblem(wanted);
    if (problem) return refuse(`The new password is not accepted: ${problem}.`, 400);
    if (wanted !== field(ctx, 'again')) return refuse('The two new passwords differ.', 400);

    let proven = null;
    try {
      proven = current ? await authenticator.authenticate({ kind: 'password', user, password: current }, ctx.ip) : null;
    } catch (err) {
      // Too many failed logins (429) or too many password checks queued (503): the form says why.
      if (!(err instanceof LarderError) || err.status < 429) throw err;
      ctx.state.errorCode = err.code;
      ctx.set(err.headers);
      return refuse(err.message, err.status);
    }
    if (!proven) return refuse('The current password is wrong.', 403);

    const record = await meta.getUser(user);
    if (!record) return refuse('Your user no longer exists.', 403);
    await meta.putUser({ ...record, passwordHash: await web.deps.passwords.hash(wanted) });
    const cookie = await web.signer.issue(user);
    if (cookie) ctx.append('Set-Cookie', sessionCookie(cookie, SESSION_LIFETIME_MS, secureRequest(ctx, web)));
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 303;
    ctx.redirect('/account/?done=password');
  });
}
