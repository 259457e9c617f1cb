/**
 * GET /health: each backend and whether it answers. 200 "ok" when all do; 200 "degraded" when only
 * backends reads do not need are down (a node without its database still serves what it can reach);
 * 503 when one reads need is down, so a load balancer sends no traffic there.
 */
import type { Routes } from '../route-group.js';
import { atMost } from '../../base/at-most.js';
import type { BackendCheck } from '../../store/backend-check.js';

/** A ping that has not answered by then counts as down. */
const PING_TIMEOUT_MS = 2000;

async function probe(check: BackendCheck): Promise<{ status: 'ok' | 'down'; ms: number; error?: string }> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
  const answer = await atMost(
    check.ping().then(
      () => null,
      (err: Error) => err.message,
    ),
    PING_TIMEOUT_MS,
    () => `no answer within ${PING_TIMEOUT_MS} ms`,
  );
  return answer === null ? { status: 'ok', ms: elapsed() } : { status: 'down', ms: elapsed(), error: answer };
}

export function registerHealthRoutes(router: Routes, checks: readonly BackendCheck[]): void {
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
