/** The web pages of a proxying larder (fake upstream): upstream project pages, and search across private, cached and listed projects. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildWheel } from '../fixtures/dists.js';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { addAliceWithRelease } from '../helpers/alice-release.js';
import { eventually } from '../helpers/eventually.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { PIP_ACCEPT } from '../helpers/raw-get.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

describe('web pages with an upstream', () => {
  let up: FakeUpstream;
  let server: TestLarder;
  const dir = suiteTempDir('larder-web-up-');
  const clock = new ManualClock(Date.now());

  before(async () => {
    up = await startFakeUpstream();
    up.addProject('Upstream.Thing', [await buildWheel(dir, { name: 'Upstream.Thing', version: '3.0', requiresPython: '>=3.8' })], {
      yanked: { 'upstream_thing-3.0-py3-none-any.whl': 'bad wheel' },
    });
    up.addProject('other-thing', [await buildWheel(dir, { name: 'other-thing', version: '1.0' })]);
    server = await startLarder({ upstream: up.url }, undefined, { clock });
    await addAliceWithRelease(server, dir, { name: 'thing-private', version: '0.1' });
  });
  after(async () => {
    await server.close();
    await up.close();
  });

  test('an upstream project page: files, yanked reason, no description rendering needed', async () => {
    const res = await fetch(`${server.url}/project/upstream-thing/`);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /<h1>Upstream\.Thing 3\.0<\/h1>/);
    assert.ok(html.includes('upstream (cached by this index)'));
    assert.ok(html.includes('href="/packages/upstream-thing/upstream_thing-3.0-py3-none-any.whl"'));
    assert.ok(html.includes('<strong>Yanked:</strong> bad wheel'));
  });

  test('search lists private, then cached, then the stored upstream list, each once', async () => {
    // Cached means what installers fetched: the simple page (the web page above reads the JSON API document).
    assert.match(await (await fetch(`${server.url}/search/?q=thing`)).text(), /1 project matches/);
    assert.equal((await fetch(`${server.url}/simple/upstream-thing/`, { headers: { Accept: PIP_ACCEPT } })).status, 200);
    clock.advance(5_000);
    // The cached page and the stored list are committed after their answers are sent.
    const search = async () => (await fetch(`${server.url}/search/?q=thing`)).text();
    await eventually(async () => /2 projects match/.test(await search()), 'the cached page to count: private and cached only (no upstream list yet)');
    assert.equal((await fetch(`${server.url}/simple/`, { headers: { Accept: PIP_ACCEPT } })).status, 200);
    await eventually(async () => /3 projects match/.test(await search()), 'the stored upstream list to be searched');
    const html = await search();
    assert.match(html, /3 projects match <strong>thing<\/strong>/);
    const kinds = [...html.matchAll(/<li><a href="\/project\/([^/]+)\/">[^<]+<\/a> <span class="badge[^"]*">(\w+)<\/span>/g)].map((m) => `${m[2]}:${m[1]}`);
    assert.deepEqual(kinds, ['private:thing-private', 'cached:upstream-thing', 'upstream:other-thing']);
  });

  test('the home page counts cached projects and names the upstream', async () => {
    const home = async () => (await fetch(`${server.url}/`)).text();
    await eventually(async () => /project list of 2 names stored/.test(await home()), 'the upstream list to be stored');
    const html = await home();
    assert.match(html, /<dt>Cached upstream projects<\/dt><dd>1<\/dd>/, "the upload's check of its name upstream (a 404) is not a project");
    assert.ok(html.includes(`<a href="${up.url}" rel="nofollow">`));
    assert.match(html, /project list of 2 names stored/);
  });
});
