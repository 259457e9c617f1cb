/**
 * Trusted publishing over HTTP, as pypi.org answers it: `GET /_/oidc/audience` and `POST /_/oidc/mint-token`
 * (no credentials: the OIDC token is the credential), and the owners' `/api/projects/NAME/publishers`.
 * A refused exchange is a 422 `{"message": "Token request failed", "errors": [{code, description}]}`.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { TokenExchange } from '../../auth/oidc/token-exchange.js';
import { badRequest } from '../../base/errors.js';
import type { PublisherRecord } from '../../store/publisher-store.js';
import type { PublisherAdmin } from '../../upload/publisher-admin.js';
import type { HttpDeps } from '../deps.js';
import { requireIdentity } from '../identity.js';
import { jsonOnly } from '../json-only.js';
import { bodyParser } from '../request-body.js';
import type { Routes } from '../route-group.js';

/** An OIDC token is about 1.5 KB; a body past this is no exchange request. */
const MAX_MINT_BODY = 32 * 1024;

const parseJson = bodyParser({ json: true, multipart: false, urlencoded: false, text: false, jsonLimit: '128kb' });

export interface TrustedPublishing {
  exchange: TokenExchange;
  admin: PublisherAdmin;
}

/** The body as JSON, or undefined when it is too large or not JSON (an `invalid-payload`). */
async function readJson(ctx: Context): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_MINT_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

export function publisherJson(p: PublisherRecord): Record<string, unknown> {
  return { id: p.id, project: p.project, issuer: p.issuer, claims: p.claims, jwks_pinned: p.jwks !== null, created_by: p.createdBy, created_at: p.createdAt };
}

/** The exchange routes: outside the read-credentials group, since a CI job has nothing but its OIDC token. */
export function registerOidcRoutes(router: Router, deps: HttpDeps, tp: TrustedPublishing): void {
  router.get('/_/oidc/audience', (ctx) => {
    ctx.body = { audience: deps.config.oidcAudience };
  });
  router.post('/_/oidc/mint-token', async (ctx) => {
    const outcome = await tp.exchange.mint(await readJson(ctx));
    if (outcome.success) {
      ctx.body = outcome;
      return;
    }
    ctx.status = 422;
    ctx.body = { message: 'Token request failed', errors: [{ code: outcome.code, description: outcome.description }] };
  });
}

export function registerPublisherApiRoutes(router: Routes, deps: HttpDeps, tp: TrustedPublishing): void {
  const who = (ctx: Context) => requireIdentity(ctx, deps.authenticator, 'manage trusted publishers');
  const project = (ctx: Context) => ctx.params.project ?? '';
  router.get('/api/projects/:project/publishers', async (ctx) => {
    ctx.body = { publishers: (await tp.admin.list(project(ctx), await who(ctx))).map(publisherJson) };
  });
  router.post('/api/projects/:project/publishers', jsonOnly, parseJson, async (ctx) => {
    const identity = await who(ctx);
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    if (typeof body.issuer !== 'string') throw badRequest('missing_field', 'The JSON body needs a string field "issuer".');
    const claims = body.claims;
    if (typeof claims !== 'object' || claims === null || Array.isArray(claims) || !Object.values(claims).every((v) => typeof v === 'string')) {
      throw badRequest('invalid_field', 'The field "claims" must be an object of strings, e.g. {"repository": "acme/widgets"}.');
    }
    const added = await tp.admin.add(
      project(ctx),
      { issuer: body.issuer, claims: claims as Record<string, string>, jwks: body.jwks ?? null },
      identity,
      identity.user,
    );
    ctx.status = 201;
    ctx.body = publisherJson(added);
  });
  router.delete('/api/projects/:project/publishers/:id', jsonOnly, async (ctx) => {
    await tp.admin.remove(project(ctx), ctx.params.id ?? '', await who(ctx));
    ctx.body = { removed: ctx.params.id };
  });
}
