/**
 * `/admin/users/`: administrators list users, add one (the name and password rules of `larder user add`),
 * make or unmake an administrator and remove a user (with their tokens and roles, as `larder user remove`).
 * Anyone else gets 403. An administrator cannot demote or remove themselves here, so the web pages never
 * lose their last administrator by a slip (the CLI still can).
 */
import type { Routes } from '../http/route-group.js';
import type { Context } from 'koa';
import type { Identity } from '../auth/authenticator.js';
import { newPasswordProblem, userNameProblem } from '../auth/user-rules.js';
import { notFound } from '../base/errors.js';
import { accountLooker, accountSession } from './account-access.js';
import { field, formBody } from './forms.js';
import { sendPage } from './page-response.js';
import type { Viewer } from './render/layout.js';
import { renderUsers, type UserRow, type UsersView } from './render/users.js';
import { viewerOf } from './viewer.js';
import type { WebContext } from './web-context.js';

const NOTICES: Record<string, (user: string) => string> = {
  added: (user) => `User ${user} was added.`,
  promoted: (user) => `${user} is now an administrator.`,
  demoted: (user) => `${user} is no longer an administrator.`,
  removed: (user) => `User ${user} was removed, with their tokens and roles.`,
};

function noticeOf(ctx: Context): string | null {
  const { done, user } = ctx.query;
  if (typeof done !== 'string' || typeof user !== 'string' || userNameProblem(user)) return null;
  return NOTICES[done]?.(user) ?? null;
}

export function registerUserAdminRoutes(router: Routes, web: WebContext): void {
  const { meta, clock } = web.deps.http;

  const rows = async (): Promise<UserRow[]> => {
    const tokens = new Map<string, number>();
    for (const t of await meta.listTokens()) tokens.set(t.user, (tokens.get(t.user) ?? 0) + 1);
    const projects = new Map<string, number>();
    for await (const p of meta.listProjects()) {
      for (const name of new Set([...p.owners, ...p.maintainers])) projects.set(name, (projects.get(name) ?? 0) + 1);
    }
    return (await meta.listUsers())
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((user) => ({ user, tokens: tokens.get(user.name) ?? 0, projects: projects.get(user.name) ?? 0 }));
  };

  const send = async (ctx: Context, who: { identity: Identity; viewer: Viewer }, extras: Partial<UsersView> = {}, status = 200) => {
    const view: UsersView = { me: who.identity.user, rows: await rows(), notice: null, problem: null, draft: { name: '', admin: false }, ...extras };
    sendPage(ctx, renderUsers(view, who.viewer), status);
    ctx.set('Cache-Control', 'no-store');
  };

  const done = (ctx: Context, what: string, user: string) => {
    ctx.status = 303;
    ctx.redirect(`/admin/users/?done=${what}&user=${encodeURIComponent(user)}`);
  };

  /** The user named in the path; 404 when there is none. */
  const named = async (ctx: Context) => {
    const name = ctx.params.name!;
    const record = userNameProblem(name) ? undefined : await meta.getUser(name);
    if (!record) throw notFound(`There is no user named '${name.slice(0, 64)}'.`);
    return record;
  };

  router.get('/admin/users', (ctx) => {
    ctx.status = 301;
    ctx.redirect('/admin/users/');
  });
  router.get('/admin/users/', async (ctx) => {
    const looker = await accountLooker(ctx, web, true);
    if (!looker) return;
    await send(ctx, { identity: looker.session.identity, viewer: looker.viewer }, { notice: noticeOf(ctx) });
  });

  router.post('/admin/users/', formBody, async (ctx) => {
    const session = await accountSession(ctx, web, true);
    const who = { identity: session.identity, viewer: viewerOf(session, web.signer) };
    const name = field(ctx, 'name').trim().slice(0, 200);
    const password = field(ctx, 'password').slice(0, 1025);
    const draft = { name, admin: field(ctx, 'admin') === 'true' };
    const refuse = (message: string, status = 400) => send(ctx, who, { problem: { where: 'add', message }, draft }, status);
    const nameProblem = userNameProblem(name);
    if (nameProblem) return refuse(`The name is not accepted: ${nameProblem}.`);
    if (await meta.getUser(name)) return refuse(`User '${name}' already exists.`, 409);
    const passwordProblem = newPasswordProblem(password);
    if (passwordProblem) return refuse(`The password is not accepted: ${passwordProblem}.`);
    if (password !== field(ctx, 'again')) return refuse('The two passwords differ.');
    const passwordHash = await web.deps.passwords.hash(password);
    await meta.putUser({ name, passwordHash, admin: draft.admin, createdAt: new Date(clock.now()).toISOString() });
    done(ctx, 'added', name);
  });

  router.post('/admin/users/:name/admin', formBody, async (ctx) => {
    const session = await accountSession(ctx, web, true);
    const record = await named(ctx);
    const admin = field(ctx, 'admin') === 'true';
    if (record.name === session.identity.user) {
      const message = 'You cannot change your own role here: another administrator (or larder user add on the server) can.';
      return send(ctx, { identity: session.identity, viewer: viewerOf(session, web.signer) }, { problem: { where: 'top', message } }, 400);
    }
    if (record.admin !== admin) await meta.putUser({ ...record, admin });
    done(ctx, admin ? 'promoted' : 'demoted', record.name);
  });

  router.post('/admin/users/:name/remove', formBody, async (ctx) => {
    const session = await accountSession(ctx, web, true);
    const record = await named(ctx);
    if (record.name === session.identity.user) {
      const message = 'You cannot remove yourself here: another administrator (or larder user remove on the server) can.';
      return send(ctx, { identity: session.identity, viewer: viewerOf(session, web.signer) }, { problem: { where: 'top', message } }, 400);
    }
    await meta.removeUser(record.name);
    done(ctx, 'removed', record.name);
  });
}
