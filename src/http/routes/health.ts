/**
 * GET /health: each backend and whether it answers. 200 "ok" when all do; 200 "degraded" when only
 * backends reads do not need are down (a node without its database still serves what it can reach);
 * 503 when one reads need is down, so a load balancer sends no traffic there.
 */
import type Router from '@koa/router';
import type { BackendCheck } from '../../store/backend-check.js';

/** A ping that has not answered by then counts as down. */
const PING_TIMEOUT_MS = 2000;

async function probe(check: BackendCheck): Promise<{ status: 'ok' | 'down'; ms: number; error?: string }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
  });
  try {
    await Promise.race([check.ping(), timeout]);
    return { status: 'ok', ms: Math.round((performance.now() - started) * 100) / 100 };
  } catch (err) {
    return { status: 'down', ms: Math.round(performance.now() - started), error: (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealthRoutes(router: Router, checks: readonly BackendCheck[]): void {
  router.get('/health', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const results = await Promise.all(checks.map(probe));
    const backends = Object.fromEntries(checks.map((c, i) => [c.role, { kind: c.kind, ...results[i] }]));
    const down = checks.filter((_, i) => results[i]!.status === 'down');
    const status = down.length === 0 ? 'ok' : down.some((c) => c.neededForReads) ? 'unavailable' : 'degraded';
    ctx.status = status === 'unavailable' ? 503 : 200;
    ctx.body = { status, backends };
  });
}
