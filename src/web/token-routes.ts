/**
 * `/account/` and its token forms: list the user's API tokens, create one (description, scope, expiry;
 * the token is shown once, on the answer to the POST, never stored or redirected to), revoke one.
 */
import type { Routes } from '../http/route-group.js';
import type { Context } from 'koa';
import { parseExpiry } from '../auth/token-expiry.js';
import { newToken } from '../auth/tokens.js';
import { notFound } from '../base/errors.js';
import { requestBaseUrl } from '../http/respond.js';
import { accountLooker, accountSession } from './account-access.js';
import { scopeChoices, sendAccount } from './account-page.js';
import { fields, field, formBody } from './forms.js';
import { sendPage } from './page-response.js';
import { renderTokenCreated, type TokenDraft } from './render/account.js';
import { publishSnippets } from './render/snippets.js';
import { viewerOf } from './viewer.js';
import type { WebContext } from './web-context.js';

/** A user with this many tokens revokes some before creating more. */
export const MAX_TOKENS_PER_USER = 100;
const MAX_DESCRIPTION = 100;

const NOTICES: Record<string, string> = {
  revoked: 'The token was revoked: it no longer works.',
  password: 'Your password was changed. Your other logins have ended.',
};

function draftOf(ctx: Context): TokenDraft {
  return {
    description: field(ctx, 'description').trim().slice(0, 1000),
    scope: field(ctx, 'scope') === 'projects' ? 'projects' : 'all',
    projects: fields(ctx, 'project').slice(0, 1000),
    expires: field(ctx, 'expires').slice(0, 40),
  };
}

export function registerTokenRoutes(router: Routes, web: WebContext): void {
  const { meta, clock, config } = web.deps.http;

  router.get('/account', (ctx) => {
    ctx.status = 301;
    ctx.redirect('/account/');
  });
  router.get('/account/', async (ctx) => {
    const looker = await accountLooker(ctx, web);
    if (!looker) return;
    const notice = typeof ctx.query.done === 'string' ? (NOTICES[ctx.query.done] ?? null) : null;
    await sendAccount(ctx, web, { identity: looker.session.identity, viewer: looker.viewer }, { notice });
  });

  router.post('/account/tokens/', formBody, async (ctx) => {
    const session = await accountSession(ctx, web);
    const { user } = session.identity;
    const who = { identity: session.identity, viewer: viewerOf(session, web.signer) };
    const draft = draftOf(ctx);
    const refuse = (message: string) => sendAccount(ctx, web, who, { problem: { form: 'token', message }, draft }, 400);

    if (!draft.description) return refuse('Give the token a description, so that you can tell it from your others.');
    if (draft.description.length > MAX_DESCRIPTION) return refuse(`The description is longer than ${MAX_DESCRIPTION} characters.`);
    const now = clock.now();
    const expiry = parseExpiry(draft.expires || 'never', now);
    if (!expiry.ok) return refuse(`Expiry: ${expiry.problem}.`);
    let projects: string[] | null = null;
    if (draft.scope === 'projects') {
      const allowed = new Set((await scopeChoices(web, user)).map((p) => p.name));
      const unknown = draft.projects.filter((p) => !allowed.has(p));
      if (unknown.length) return refuse(`You neither own nor maintain ${unknown.slice(0, 3).join(', ').slice(0, 300)}.`);
      projects = [...new Set(draft.projects)].sort();
      if (projects.length === 0) return refuse('Choose at least one project, or the scope "all your projects".');
    }
    if ((await meta.listTokens(user)).length >= MAX_TOKENS_PER_USER) return refuse(`You have ${MAX_TOKENS_PER_USER} tokens: revoke some first.`);

    const { token, record } = newToken(user, { projects, description: draft.description, expiresAt: expiry.expiresAt }, new Date(now));
    await meta.putToken(record);
    const target = { base: requestBaseUrl(ctx.req, config).replace(/\/+$/, ''), readAuth: config.readAuth };
    const pypirc = publishSnippets(target)
      .find((s) => s.id === 'pypirc')!
      .text.replace('YOUR-LARDER-TOKEN', token);
    sendPage(ctx, renderTokenCreated(record, token, pypirc, who.viewer));
    // The token is in this page only: no cache may keep it.
    ctx.set('Cache-Control', 'no-store');
  });

  router.post('/account/tokens/:id/revoke', formBody, async (ctx) => {
    const session = await accountSession(ctx, web);
    const id = ctx.params.id!;
    const mine = /^[0-9a-f]{12}$/.test(id) && (await meta.listTokens(session.identity.user)).some((t) => t.id === id);
    if (!mine || !(await meta.removeToken(id))) throw notFound(`You have no token with id '${id.slice(0, 40)}'; it may be revoked already.`);
    ctx.status = 303;
    ctx.redirect('/account/?done=revoked');
  });
}
