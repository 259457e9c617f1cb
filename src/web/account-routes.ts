/** POST routes of the web pages: logging in and out, and an owner's yank / unyank of a release. */
import type { Routes } from '../http/route-group.js';
import type { Context } from 'koa';
import { LarderError } from '../base/errors.js';
import { checkProjectName, checkVersionSegment } from '../model/client-names.js';
import { normalizeName } from '../model/names.js';
import { checkedSession, field, formBody, secureRequest } from './forms.js';
import { sendPage } from './page-response.js';
import { ANONYMOUS } from './render/layout.js';
import { renderLogin } from './render/login.js';
import { SESSION_LIFETIME_MS } from './session.js';
import { localPath, sessionCookie } from './viewer.js';
import type { WebContext } from './web-context.js';

export function registerAccountRoutes(router: Routes, web: WebContext): void {
  const { http } = web.deps;
  const { config } = http;
  const secure = (ctx: Context) => secureRequest(ctx, web);

  router.get('/account/login/', async (ctx) => {
    const next = localPath(ctx.query.next);
    sendPage(ctx, renderLogin(next, null, ANONYMOUS, config.readAuth));
  });
  router.get('/account/login', (ctx) => {
    ctx.status = 301;
    ctx.redirect(`/account/login/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
  });

  router.post('/account/login/', formBody, async (ctx) => {
    const next = localPath(field(ctx, 'next'));
    const user = field(ctx, 'username').slice(0, 64);
    const password = field(ctx, 'password').slice(0, 1024);
    let identity = null;
    try {
      if (user && password) identity = await http.authenticator.authenticate({ kind: 'password', user, password }, ctx.ip);
    } catch (err) {
      // Too many failed logins (429) or too many password checks queued (503): the form shows why.
      if (!(err instanceof LarderError) || err.status < 429) throw err;
      ctx.state.errorCode = err.code;
      ctx.set(err.headers);
      return sendPage(ctx, renderLogin(next, err.message, ANONYMOUS, config.readAuth), err.status);
    }
    const cookie = identity && !identity.viaToken ? await web.signer.issue(identity.user) : null;
    if (!cookie) return sendPage(ctx, renderLogin(next, 'Wrong user name or password.', ANONYMOUS, config.readAuth), 403);
    ctx.append('Set-Cookie', sessionCookie(cookie, SESSION_LIFETIME_MS, secure(ctx)));
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 303;
    ctx.redirect(next);
  });

  router.post('/account/logout/', formBody, async (ctx) => {
    await web.signer.end(await checkedSession(ctx, web));
    ctx.append('Set-Cookie', sessionCookie('', 0, secure(ctx)));
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 303;
    ctx.redirect('/');
  });

  const setYanked = (yanked: boolean) => async (ctx: Context) => {
    const project = ctx.params.project!;
    const version = ctx.params.version!;
    checkProjectName(project);
    checkVersionSegment(version);
    const session = await checkedSession(ctx, web);
    const reason = yanked ? field(ctx, 'reason').trim().slice(0, 500) || null : null;
    await web.deps.admin.setYanked(project, version, yanked, reason, session.identity);
    ctx.status = 303;
    ctx.redirect(`/project/${encodeURIComponent(normalizeName(project))}/${encodeURIComponent(version)}/?done=${yanked ? 'yanked' : 'unyanked'}`);
  };
  router.post('/project/:project/:version/yank', formBody, setYanked(true));
  router.post('/project/:project/:version/unyank', formBody, setYanked(false));
}
