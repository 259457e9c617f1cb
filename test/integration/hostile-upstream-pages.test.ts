/**
 * Hostile project pages from the upstream (issue "Hostile content"): a page that breaks a limit of
 * content-limits.ts is answered 502 with one line naming the upstream URL and the limit, /health keeps
 * answering meanwhile, and a stale cached copy is still served.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { FakeUpstream } from '../fixtures/fake-upstream.js';
import { suiteUpstreamBench } from '../helpers/upstream-bench.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { PIP_ACCEPT, rawGet } from '../helpers/raw-get.js';

/** One anchor with 40,000 attributes (760 KB): 8 s of main-thread work for the parser larder used before. */
const MANY_ATTRIBUTES = `<html><body><a href="evil-1.0.tar.gz"${' x=1'.repeat(40_000)}>evil</a></body></html>`;
const DEEP_JSON = `{"meta":{"api-version":"1.1"},"files":[${'['.repeat(100_000)}`;

describe('hostile upstream pages', () => {
  const bench = suiteUpstreamBench('larder-hostile-');
  let up: FakeUpstream;
  const larder = (clock?: ManualClock) => bench.larder({ pageTtl: 300, upstreamRetries: 0 }, { clock });
  const serve = (path: string, contentType: string, body: string) =>
    up.setFault({ kind: 'status', status: 200, body, headers: { 'Content-Type': contentType }, pathPrefix: path });

  before(async () => {
    up = bench.up;
    await bench.offerWheel({ name: 'victim', version: '1.0' });
  });

  test('a tag with 40,000 attributes: 502 naming the page and the limit, while /health answers', async () => {
    const l = await larder();
    await serve('/simple/evil/', 'text/html; charset=utf-8', MANY_ATTRIBUTES);
    try {
      const [page, health] = await Promise.all([rawGet(`${l.url}/simple/evil/`, { headers: { Accept: PIP_ACCEPT } }), rawGet(`${l.url}/health`)]);
      assert.equal(health.status, 200);
      assert.equal(page.status, 502, page.body.toString());
      const message = page.body.toString();
      assert.match(message, new RegExp(`simple HTML page ${up.url}evil/: a <a> tag has more than 64 attributes \\(larder's limit\\)`));
      assert.doesNotMatch(message.trim(), /\n/, 'one line');
      assert.equal((await rawGet(`${l.url}/health`)).status, 200);
      // Refused pages are remembered as a 404 is: asking again does not fetch and parse it again.
      up.clearLog();
      const again = await rawGet(`${l.url}/simple/evil/`, { headers: { Accept: PIP_ACCEPT } });
      assert.equal(again.status, 502);
      assert.equal(again.body.toString(), message);
      assert.equal(up.requestsTo('/simple/evil/').length, 0);
    } finally {
      await up.setFault(null);
    }
  });

  test('a JSON page nested 100,000 deep: 502 naming the limit', async () => {
    const l = await larder();
    await serve('/simple/deep/', 'application/vnd.pypi.simple.v1+json', DEEP_JSON);
    try {
      const page = await rawGet(`${l.url}/simple/deep/`, { headers: { Accept: PIP_ACCEPT } });
      assert.equal(page.status, 502);
      assert.match(page.body.toString(), new RegExp(`simple JSON page ${up.url}deep/: arrays and objects nest more than 32 deep`));
    } finally {
      await up.setFault(null);
    }
  });

  test('a page that turns hostile after it was cached: the stale copy is served', async () => {
    const clock = new ManualClock(Date.now());
    const l = await larder(clock);
    const first = await rawGet(`${l.url}/simple/victim/`, { headers: { Accept: PIP_ACCEPT } });
    assert.equal(first.status, 200);
    clock.advance(400);
    await serve('/simple/victim/', 'text/html', MANY_ATTRIBUTES);
    try {
      up.clearLog();
      const stale = await rawGet(`${l.url}/simple/victim/`, { headers: { Accept: PIP_ACCEPT } });
      assert.equal(stale.status, 200);
      assert.equal(stale.headers['x-larder-cache'], 'stale');
      assert.ok(stale.body.equals(first.body));
      assert.equal(up.requestsTo('/simple/victim/').length, 1, 'the hostile page was fetched');
    } finally {
      await up.setFault(null);
    }
  });

  test('a refused page is asked for again once a 404 would be', async () => {
    const clock = new ManualClock(Date.now());
    const l = await bench.larder({ pageTtl: 300_000, notFoundTtl: 60_000, upstreamRetries: 0 }, { clock });
    await serve('/simple/victim/', 'text/html', MANY_ATTRIBUTES);
    try {
      assert.equal((await rawGet(`${l.url}/simple/victim/`, { headers: { Accept: PIP_ACCEPT } })).status, 502);
    } finally {
      await up.setFault(null);
    }
    clock.advance(59_000);
    assert.equal((await rawGet(`${l.url}/simple/victim/`, { headers: { Accept: PIP_ACCEPT } })).status, 502, 'still remembered');
    clock.advance(2_000);
    const page = await rawGet(`${l.url}/simple/victim/`, { headers: { Accept: PIP_ACCEPT } });
    assert.equal(page.status, 200, 'the page is read again once it is fixed');
  });
});
