/** GET /metrics in the Prometheus text format; behind a bearer token when LARDER_METRICS_TOKEN is set. */
import { timingSafeEqual } from 'node:crypto';
import type { Routes } from '../route-group.js';
import { LarderError } from '../../base/errors.js';
import type { Metrics } from '../../metrics/metrics.js';

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function registerMetricsRoutes(router: Routes, metrics: Metrics, token: string | null): void {
  router.get('/metrics', async (ctx) => {
    if (token) {
      const header = ctx.get('Authorization');
      const given = /^bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
      if (!sameToken(given, token)) {
        throw new LarderError('metrics_token', 'The metrics need the bearer token set in LARDER_METRICS_TOKEN.', {
          'WWW-Authenticate': 'Bearer realm="larder metrics"',
        });
      }
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
}
