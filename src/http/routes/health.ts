/**
 * GET /health: each backend and whether it answers, and what the node can serve (`serving`). 200 "ok" when
 * all answer; 200 "degraded" when only a shared backend is down (a frozen S3 bucket: no files, but pages
 * and metadata; a shared database: no writes), which every node lacks alike, so a load balancer keeps
 * them all; 503 "unavailable" when the node's own storage is down, so a load balancer sends no traffic there.
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
    const backends = Object.fromEntries(checks.map((c, i) => [c.role, { kind: c.kind, neededFor: c.neededFor, ...results[i] }]));
    const down = new Set(checks.filter((_, i) => results[i]!.status === 'down').map((c) => c.neededFor));
    const status = down.size === 0 ? 'ok' : down.has('everything') ? 'unavailable' : 'degraded';
    const serving = { pages: !down.has('everything'), files: !down.has('everything') && !down.has('files'), writes: down.size === 0 };
    ctx.status = status === 'unavailable' ? 503 : 200;
    ctx.body = { status, serving, backends };
  });
}
