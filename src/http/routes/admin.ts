/** The small owner/admin JSON API under /api/, authenticated like uploads; it reads JSON bodies only. */
import type { Routes } from '../route-group.js';
import type { Context } from 'koa';
import { bodyParser } from '../request-body.js';
import { badRequest } from '../../base/errors.js';
import { checkFilenameSegment, checkProjectName, checkVersionSegment } from '../../model/client-names.js';
import type { ProjectAdmin } from '../../upload/project-admin.js';
import type { HttpDeps } from '../deps.js';
import { requireIdentity } from '../identity.js';
import { jsonOnly } from '../json-only.js';

const parseJson = bodyParser({ json: true, multipart: false, urlencoded: false, text: false, jsonLimit: '64kb' });
const jsonBody = [jsonOnly, parseJson];

function stringField(ctx: Context, field: string, required: boolean): string | null {
  const body = (ctx.request.body ?? {}) as Record<string, unknown>;
  const value = body[field];
  if (value === undefined || value === null || value === '') {
    if (required) throw badRequest('missing_field', `The JSON body needs a string field "${field}".`);
    return null;
  }
  if (typeof value !== 'string') throw badRequest('invalid_field', `The field "${field}" must be a string.`);
  return value;
}

export function registerAdminRoutes(router: Routes, deps: HttpDeps, admin: ProjectAdmin): void {
  const who = (ctx: Context) => requireIdentity(ctx, deps.authenticator, 'manage projects');
  // The router has decoded the segments already; each is checked before credentials or records are looked up.
  const checks = { project: checkProjectName, version: checkVersionSegment, filename: checkFilenameSegment };
  const p = (ctx: Context, name: keyof typeof checks) => {
    const value = ctx.params[name] ?? '';
    checks[name](value);
    return value;
  };

  router.post('/api/projects/:project/releases/:version/yank', ...jsonBody, async (ctx) => {
    const serial = await admin.setYanked(p(ctx, 'project'), p(ctx, 'version'), true, stringField(ctx, 'reason', false), await who(ctx));
    ctx.body = { yanked: true, serial };
  });
  router.post('/api/projects/:project/releases/:version/unyank', ...jsonBody, async (ctx) => {
    const serial = await admin.setYanked(p(ctx, 'project'), p(ctx, 'version'), false, null, await who(ctx));
    ctx.body = { yanked: false, serial };
  });
  router.delete('/api/projects/:project', jsonOnly, async (ctx) => {
    const removed = await admin.remove(p(ctx, 'project'), null, null, await who(ctx));
    ctx.body = { removed: removed.map((f) => f.filename) };
  });
  router.delete('/api/projects/:project/releases/:version', jsonOnly, async (ctx) => {
    const removed = await admin.remove(p(ctx, 'project'), p(ctx, 'version'), null, await who(ctx));
    ctx.body = { removed: removed.map((f) => f.filename) };
  });
  router.delete('/api/projects/:project/releases/:version/files/:filename', jsonOnly, async (ctx) => {
    const removed = await admin.remove(p(ctx, 'project'), p(ctx, 'version'), p(ctx, 'filename'), await who(ctx));
    ctx.body = { removed: removed.map((f) => f.filename) };
  });
  router.post('/api/projects/:project/maintainers', ...jsonBody, async (ctx) => {
    await admin.addMaintainer(p(ctx, 'project'), stringField(ctx, 'user', true)!, await who(ctx));
    ctx.body = { added: true };
  });
  router.post('/api/projects/:project/status', ...jsonBody, async (ctx) => {
    const status = stringField(ctx, 'status', true)!;
    const reason = stringField(ctx, 'reason', false);
    const set = await admin.setStatus(p(ctx, 'project'), status, reason, await who(ctx));
    ctx.body = { status, reason: reason?.trim() || null, serial: set.serial };
  });
  router.post('/api/allowed-names', ...jsonBody, async (ctx) => {
    ctx.body = { allowed: await admin.allowName(stringField(ctx, 'name', true)!, await who(ctx)) };
  });
}
