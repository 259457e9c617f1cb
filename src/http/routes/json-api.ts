/** The Warehouse JSON API: /pypi/<project>/json and /pypi/<project>/<version>/json, with /index/ aliases. */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { LarderError } from '../../base/errors.js';
import type { SourceTrace } from '../../model/documents.js';
import { normalizeName } from '../../model/names.js';
import { checkProjectName, checkVersionSegment } from '../../index/client-names.js';
import { renderProjectJson, renderReleaseJson } from '../../render/json-api.js';
import type { HttpDeps } from '../deps.js';
import { requestBaseUrl, sendIndexDocument } from '../respond.js';
import { redirect } from './simple.js';

const jsonNotFound = () => new LarderError('not_found', 'Not Found', {}, '{"message": "Not Found"}', 'application/json');

/** The JSON API answers errors in JSON too: `{"message": …}`. */
const jsonError = (err: LarderError) =>
  new LarderError(err.code, err.message, err.headers, `${JSON.stringify({ message: err.message })}\n`, 'application/json');

export function registerJsonApiRoutes(router: Router, deps: HttpDeps): void {
  const handle = async (ctx: Context, prefix: string, version: string | null) => {
    const requested = ctx.params.project!;
    try {
      checkProjectName(requested);
      if (version !== null) checkVersionSegment(version);
    } catch (err) {
      throw err instanceof LarderError ? jsonError(err) : err;
    }
    const name = normalizeName(requested);
    if (name !== requested) {
      const rest = version === null ? 'json' : `${encodeURIComponent(version)}/json`;
      return redirect(ctx, `/${prefix}/${name}/${rest}`);
    }
    const trace: SourceTrace = {};
    let doc: Awaited<ReturnType<typeof deps.source.getReleases>>;
    try {
      doc = await deps.source.getReleases(name, trace, version ?? undefined);
    } catch (err) {
      if (err instanceof LarderError) throw jsonError(err);
      throw err;
    }
    if (trace.cache) ctx.set('X-Larder-Cache', trace.cache);
    if (trace.upstream) ctx.set('X-Larder-Upstream', trace.upstream);
    if (!doc) throw jsonNotFound();
    // Absolute URLs, as on pypi.org: under LARDER_PUBLIC_URL (kept and shared), else from this request's
    // Host, made for this request alone (not kept, and private to caches).
    const base = requestBaseUrl(ctx, deps.config);
    const key = deps.config.publicUrl ? `json\0${name}\0${version ?? ''}` : null;
    const rendered = deps.rendered.get(key, doc, () => {
      const body = version === null ? renderProjectJson(doc, base) : renderReleaseJson(doc, version, base);
      if (body === null) throw jsonNotFound();
      return { body, contentType: 'application/json', serial: doc.serial };
    });
    await sendIndexDocument(ctx, deps.config, deps.rendered, key, rendered, false);
  };
  for (const prefix of ['pypi', 'index']) {
    for (const slash of ['', '/']) {
      router.get(`/${prefix}/:project/json${slash}`, (ctx) => handle(ctx, prefix, null));
      router.get(`/${prefix}/:project/:version/json${slash}`, (ctx) => handle(ctx, prefix, ctx.params.version!));
    }
  }
}
