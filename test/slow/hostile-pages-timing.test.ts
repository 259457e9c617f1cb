/**
 * Issue 25 in wall-clock time, against `larder serve` in a child process: the first view of a project whose
 * description is 1 MiB of nested unclosed `<div>`s (or just under the cap, so that it goes to the worker
 * and runs into its time limit) answers within seconds while `/health` keeps answering; and for a 40,000-file
 * project on an HTML-only upstream, a repeated `/pypi/<p>/json` or `/project/<p>/` takes a fraction of the
 * first. Slow tier: it measures times (generously, for a loaded machine).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildWheel } from '../fixtures/dists.js';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { syntheticReleases } from '../fixtures/synthetic-dists.js';
import { suiteChildServer } from '../helpers/child-server.js';
import { basicAuth } from '../helpers/larder.js';
import { publish } from '../helpers/upload-form.js';

/** While `during` runs, `/health` is asked every 20 ms; the slowest answer, in ms. */
async function slowestHealth<T>(url: string, during: () => Promise<T>): Promise<{ result: T; slowest: number; ms: number }> {
  let done = false;
  let slowest = 0;
  const poll = (async () => {
    while (!done) {
      const started = performance.now();
      assert.equal((await fetch(`${url}/health`)).status, 200);
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const started = performance.now();
  try {
    const result = await during();
    return { result, slowest, ms: performance.now() - started };
  } finally {
    done = true;
    await poll;
  }
}

const nestedDivs = (chars: number) => '<div>'.repeat(Math.ceil(chars / 5));

describe('a hostile description holds up no other request', () => {
  const suite = suiteChildServer('larder-hostile-timing-');

  before(async () => {
    for (const [name, description] of [
      ['over-cap', nestedDivs(1024 * 1024)],
      ['under-cap', nestedDivs(511 * 1024)],
    ] as const) {
      await publish(suite.server.url, basicAuth('alice', 'alice-password'), await buildWheel(suite.dir, { name, version: '1.0' }), {
        description,
        description_content_type: 'text/markdown',
      });
    }
  });

  for (const name of ['over-cap', 'under-cap']) {
    test(`${name}: the first view answers within seconds, /health within a second all along`, async () => {
      const { result: status, slowest, ms } = await slowestHealth(suite.server.url, async () => (await fetch(`${suite.server.url}/project/${name}/`)).status);
      assert.equal(status, 200);
      // The worker's start and its 3 s time limit, at most; it was 15 s and more, with everything else waiting.
      assert.ok(ms < 15_000, `the page took ${Math.round(ms)} ms`);
      assert.ok(slowest < 1_000, `/health waited ${Math.round(slowest)} ms`);
    });
  }
});

describe('a 40,000-file project on an HTML-only upstream', () => {
  const FILES = 40_000;
  let up: FakeUpstream;
  const suite = suiteChildServer('larder-big-page-timing-', {
    alice: false,
    prepare: async () => {
      up = await startFakeUpstream({ htmlOnly: true, jsonApi: false, coreMetadata: false, fileHashes: false });
      up.addProject('big', syntheticReleases('big', FILES / 2));
    },
    args: (data) => ['--data', data, '--upstream', up.url, '--upstream-retries', '0'],
  });
  after(() => up?.close());

  test('a repeated JSON API request or project page costs a fraction of the first', async () => {
    const timed = async (path: string) => {
      const started = performance.now();
      const res = await fetch(`${suite.server.url}${path}`);
      const body = await res.text();
      assert.equal(res.status, 200, path);
      return { body, ms: performance.now() - started };
    };
    const first = await timed('/pypi/big/json');
    const doc = JSON.parse(first.body) as { releases: Record<string, unknown[]> };
    assert.equal(Object.values(doc.releases).flat().length, FILES);
    await timed('/project/big/');
    // Each was about 10 s, every time, when every file was looked up by a scan of the page.
    for (const path of ['/pypi/big/json', '/project/big/']) {
      const again = await timed(path);
      assert.ok(again.ms < 3_000, `${path} again took ${Math.round(again.ms)} ms`);
    }
  });
});
