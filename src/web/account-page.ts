/** Builds and sends `/account/` for a user, with a notice or a form's refusal (shared by the token and password routes). */
import type { Context } from 'koa';
import type { Identity } from '../auth/authenticator.js';
import { sendPage } from './page-response.js';
import { type AccountView, EMPTY_DRAFT, renderAccount, type ScopeChoice } from './render/account.js';
import type { Viewer } from './render/layout.js';
import type { WebContext } from './web-context.js';

/** The projects `user` owns or maintains, which a token of theirs may be limited to. */
export async function scopeChoices(web: WebContext, user: string): Promise<ScopeChoice[]> {
  const choices: ScopeChoice[] = [];
  for await (const p of web.deps.http.meta.listProjects()) {
    if (p.owners.includes(user) || p.maintainers.includes(user)) choices.push({ name: p.name, displayName: p.displayName });
  }
  return choices.sort((a, b) => a.name.localeCompare(b.name));
}

export async function sendAccount(
  ctx: Context,
  web: WebContext,
  who: { identity: Identity; viewer: Viewer },
  extras: Partial<Pick<AccountView, 'notice' | 'problem' | 'draft'>> = {},
  status = 200,
): Promise<void> {
  const { meta, clock } = web.deps.http;
  const { user, admin } = who.identity;
  const tokens = (await meta.listTokens(user)).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  const view: AccountView = {
    user,
    admin,
    tokens,
    now: clock.now(),
    scopes: await scopeChoices(web, user),
    notice: extras.notice ?? null,
    problem: extras.problem ?? null,
    draft: extras.draft ?? EMPTY_DRAFT,
  };
  sendPage(ctx, renderAccount(view, who.viewer), status);
  ctx.set('Cache-Control', 'no-store');
}
