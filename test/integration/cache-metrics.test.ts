/**
 * `larder_cache_results_total` counts requests: one answer per request, in the state the response reports
 * in `X-Larder-Cache`, however many cached documents answering it took (a JSON API document built from a
 * simple page reads the page too; filling `info` reads a `.metadata` file).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { startLarder } from '../helpers/larder.js';
import { PIP_ACCEPT, rawGet } from '../helpers/raw-get.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

async function cacheCounts(url: string): Promise<Record<string, number>> {
  const text = (await rawGet(`${url}/metrics`)).body.toString('utf8');
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^larder_cache_results_total\{kind="(\w+)",state="(\w+)"\} (\d+)$/gm)) counts[`${match[1]} ${match[2]}`] = Number(match[3]);
  return counts;
}

describe('cache results counted once per request', () => {
  const dir = suiteTempDir('larder-cache-metrics-');
  let dist: BuiltDist;
  const upstreams: FakeUpstream[] = [];

  before(async () => {
    dist = await buildWheel(join(dir, 'app'), { name: 'app', version: '1.0' });
  });

  after(async () => {
    for (const up of upstreams) await up.close();
  });

  for (const [kind, options] of [
    ['an upstream with a JSON API', {}],
    ['an HTML-only upstream', { htmlOnly: true, jsonApi: false }],
  ] as const) {
    test(`${kind}: pages, JSON documents and files each count once`, async () => {
      const up = await startFakeUpstream(options);
      upstreams.push(up);
      up.addProject('app', [dist]);
      const l = await startLarder({ upstream: up.url, upstreamRetries: 0 }, join(dir, `data-${upstreams.length}`));
      try {
        const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
        const requests = [
          `/simple/app/`,
          `/simple/app/`,
          `/pypi/app/json`,
          `/pypi/app/json`,
          `/pypi/app/1.0/json`,
          `/packages/app/${dist.filename}`,
          `/packages/app/${dist.filename}.metadata`,
        ];
        const states: string[] = [];
        for (const path of requests) {
          const got = await rawGet(`${l.url}${path}`, { headers: { Accept: PIP_ACCEPT } });
          assert.equal(got.status, 200, path);
          states.push(String(got.headers['x-larder-cache']));
        }
        const counts = await cacheCounts(l.url);
        assert.equal(total(counts), requests.length, JSON.stringify(counts));
        assert.equal(counts['page hit'], states.slice(0, 5).filter((s) => s === 'hit').length);
        assert.equal((counts['file hit'] ?? 0) + (counts['file miss'] ?? 0), 1);
        assert.equal((counts['metadata hit'] ?? 0) + (counts['metadata miss'] ?? 0), 1);
      } finally {
        await l.stop();
      }
    });
  }
});
