/** GET routes of the web pages: home, search, help, statistics and the project pages. */
import type { Routes } from '../http/route-group.js';
import type { Context } from 'koa';
import { checkProjectName, checkVersionSegment } from '../model/client-names.js';
import { normalizeName } from '../model/names.js';
import { requestBaseUrl } from '../http/respond.js';
import { wantsStatsJson } from '../http/routes/stats.js';
import { latestPrivateFileTotals } from '../store/stats.js';
import { refusalError } from '../policy/policy-source.js';
import { UpstreamClient } from '../upstream/client.js';
import { normalizeQuery } from './name-list.js';
import { sendPage } from './page-response.js';
import { renderHelp } from './render/help.js';
import { renderHome } from './render/home.js';
import { renderHeld, renderRefused } from './render/policy-holds.js';
import { renderMissingProject, renderProject } from './render/project.js';
import { PAGE_SIZE, renderSearch } from './render/search.js';
import { renderStats } from './render/stats.js';
import { installSnippets } from './render/snippets.js';
import type { WebContext } from './web-context.js';

/** Result pages beyond this are not offered (as on pypi.org, which stops at 500). */
const MAX_PAGE = 500;

const NOTICES: Record<string, string> = { yanked: 'The release was yanked.', unyanked: 'The release was unyanked.' };

function redirect(ctx: Context, path: string): void {
  ctx.status = 301;
  ctx.redirect(path + (ctx.querystring ? `?${ctx.querystring}` : ''));
}

export function registerPageRoutes(router: Routes, web: WebContext): void {
  const { http } = web.deps;
  const { config } = http;
  const target = (ctx: Context) => ({ base: requestBaseUrl(ctx.req, config).replace(/\/+$/, ''), readAuth: config.readAuth });
  const upstream = config.upstreams[0] ? UpstreamClient.stripCredentials(config.upstreams[0].url) : null;
  const privateFiles = latestPrivateFileTotals(http.meta);

  router.get('/', async (ctx) => {
    const looker = await web.look(ctx);
    if (!looker) return;
    const list = upstream ? web.deps.documents.getRootList() : undefined;
    const summary = {
      privateProjects: await http.meta.projectCount(),
      privateFiles: await privateFiles(),
      cachedProjects: upstream ? web.search.cachedProjects() : 0,
      upstream,
      offline: config.offline,
      upstreamList: list ? { fetchedAt: list.fetchedAt, count: list.count } : null,
    };
    // People search next: the upstream list's search structure (about a second for 600,000 names) is built meanwhile.
    web.search.warm();
    sendPage(ctx, renderHome(summary, target(ctx), looker.viewer));
  });

  router.get('/help', (ctx) => redirect(ctx, '/help/'));
  router.get('/help/', async (ctx) => {
    const looker = await web.look(ctx);
    if (!looker) return;
    sendPage(ctx, renderHelp(target(ctx), { maxUploadSize: config.maxUploadSize, upstream, offline: config.offline }, looker.viewer));
  });

  const statsPage = async (ctx: Context, next: () => Promise<unknown>) => {
    ctx.vary('Accept');
    // API clients get the JSON document from the index API's route, behind its read-auth check.
    if (wantsStatsJson(ctx)) {
      ctx.state.webPassedOn = true;
      return next();
    }
    if (ctx.path === '/stats') return redirect(ctx, '/stats/');
    const looker = await web.look(ctx);
    if (!looker) return;
    sendPage(ctx, renderStats(await http.stats(), upstream !== null, looker.viewer));
  };
  router.get('/stats', statsPage);
  router.get('/stats/', statsPage);

  router.get('/search', (ctx) => redirect(ctx, '/search/'));
  router.get('/search/', async (ctx) => {
    const looker = await web.look(ctx);
    if (!looker) return;
    const raw = typeof ctx.query.q === 'string' ? ctx.query.q.slice(0, 200) : '';
    const query = normalizeQuery(raw);
    const pageNumber = Math.min(MAX_PAGE, Math.max(1, Number.parseInt(String(ctx.query.page ?? '1'), 10) || 1));
    const result = query ? await web.search.search(query, (pageNumber - 1) * PAGE_SIZE, PAGE_SIZE) : null;
    sendPage(ctx, renderSearch(raw, query, pageNumber, result, looker.viewer));
  });

  const projectPage = async (ctx: Context) => {
    const requested = ctx.params.project!;
    const version = ctx.params.version ?? null;
    checkProjectName(requested);
    if (version !== null) checkVersionSegment(version);
    const name = normalizeName(requested);
    const versionPart = version === null ? '' : `${encodeURIComponent(version)}/`;
    if (name !== requested || !ctx.path.endsWith('/')) return redirect(ctx, `/project/${encodeURIComponent(name)}/${versionPart}`);
    const looker = await web.look(ctx);
    if (!looker) return;
    const found = await web.views.lookup(name, version, looker.session?.identity ?? null);
    if (found.found === 'none') return sendPage(ctx, renderMissingProject(version === null ? name : `${name} ${version}`, looker.viewer), 404);
    if (found.found === 'other-spelling') return redirect(ctx, `/project/${encodeURIComponent(name)}/${encodeURIComponent(found.version)}/`);
    if (found.found === 'refused') return sendPage(ctx, renderRefused(name, found.refusal, looker.viewer), refusalError(found.refusal).status);
    if (found.found === 'held') return sendPage(ctx, renderHeld({ name, ...found }, looker.viewer));
    const { view } = found;
    const pip = installSnippets(target(ctx))[0]!.text.replace(/ PROJECT$/, '');
    const pin = view.latest ? view.displayName : `${view.displayName}==${view.release.version}`;
    const notice = typeof ctx.query.done === 'string' ? (NOTICES[ctx.query.done] ?? null) : null;
    sendPage(ctx, renderProject({ ...view, installLine: `${pip} ${pin}`, notice }, looker.viewer));
  };
  router.get('/project/:project', projectPage);
  router.get('/project/:project/', projectPage);
  router.get('/project/:project/:version', projectPage);
  router.get('/project/:project/:version/', projectPage);
}
