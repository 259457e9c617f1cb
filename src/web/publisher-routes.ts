/**
 * A project's trusted publishers on the web (pypi.org's `/manage/project/<name>/settings/publishing/`): the
 * owners (logged in with a password) list, add and remove them, as with `larder publisher` and `/api`.
 */
import type { Context } from 'koa';
import { LarderError } from '../base/errors.js';
import type { Routes } from '../http/route-group.js';
import { checkProjectName } from '../model/client-names.js';
import { normalizeName } from '../model/names.js';
import { parseClaim } from '../upload/publisher-admin.js';
import { accountLooker, accountSession } from './account-access.js';
import { field, formBody } from './forms.js';
import { sendPage } from './page-response.js';
import { publishersPath, renderPublishers, type PublishersView } from './render/publishers.js';
import type { Identity } from '../auth/authenticator.js';
import type { Viewer } from './render/layout.js';
import { viewerOf } from './viewer.js';
import type { WebContext } from './web-context.js';

const NOTICES: Record<string, string> = { added: 'The publisher was added.', removed: 'The publisher was removed: it mints no more tokens.' };
const MAX_CLAIM_LINES = 20;

export function registerPublisherRoutes(router: Routes, web: WebContext): void {
  const { meta, config } = web.deps.http;
  const admin = web.deps.publishers;

  const show = async (ctx: Context, name: string, who: Identity, viewer: Viewer, extra: Partial<PublishersView> = {}, status = 200) => {
    const publishers = await admin.list(name, who);
    const record = await meta.getProject(normalizeName(name));
    const view: PublishersView = {
      name: record!.name,
      displayName: record!.displayName,
      publishers,
      issuers: config.oidcIssuers,
      notice: null,
      problem: null,
      draft: { issuer: '', claims: '' },
      ...extra,
    };
    sendPage(ctx, renderPublishers(view, viewer), status);
  };

  router.get('/manage/project/:project/settings/publishing/', async (ctx) => {
    const name = ctx.params.project!;
    checkProjectName(name);
    const looker = await accountLooker(ctx, web);
    if (!looker) return;
    const notice = typeof ctx.query.done === 'string' ? (NOTICES[ctx.query.done] ?? null) : null;
    await show(ctx, name, looker.session.identity, looker.viewer, { notice });
  });

  router.post('/manage/project/:project/settings/publishing/', formBody, async (ctx) => {
    const name = ctx.params.project!;
    checkProjectName(name);
    const session = await accountSession(ctx, web);
    const draft = { issuer: field(ctx, 'issuer').trim().slice(0, 500), claims: field(ctx, 'claims').slice(0, 10_000) };
    try {
      const lines = draft.claims
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean)
        .slice(0, MAX_CLAIM_LINES + 1);
      const claims = Object.fromEntries(lines.map(parseClaim));
      await admin.add(name, { issuer: draft.issuer, claims, jwks: null }, session.identity, session.identity.user);
    } catch (err) {
      if (!(err instanceof LarderError) || err.status !== 400) throw err;
      return show(ctx, name, session.identity, viewerOf(session, web.signer), { problem: err.message, draft }, 400);
    }
    ctx.status = 303;
    ctx.redirect(`${publishersPath(normalizeName(name))}?done=added`);
  });

  router.post('/manage/project/:project/settings/publishing/:id/remove', formBody, async (ctx) => {
    const name = ctx.params.project!;
    checkProjectName(name);
    const session = await accountSession(ctx, web);
    await admin.remove(name, ctx.params.id!, session.identity);
    ctx.status = 303;
    ctx.redirect(`${publishersPath(normalizeName(name))}?done=removed`);
  });
}
