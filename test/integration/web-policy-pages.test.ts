/**
 * The supply-chain policy on the web pages (fake upstream, injected clock): a project page lists the
 * releases held back with the rule and, under the cooldown, when each becomes available, until the clock
 * passes that moment; a held-back release and a project with no release offered get their own page; a
 * refused project answers its API status with the rule; private projects never show a hold.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as cheerio from 'cheerio';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { publish } from '../helpers/upload-form.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

describe('web pages under the supply-chain policy', () => {
  const start = Date.UTC(2026, 5, 1);
  const clock = new ManualClock(start);
  let up: FakeUpstream;
  let server: TestLarder;
  const dir = suiteTempDir('larder-web-policy-');
  const d: Record<string, BuiltDist> = {};
  const page = async (path: string) => {
    const res = await fetch(`${server.url}${path}`);
    return { status: res.status, $: cheerio.load(await res.text()) };
  };
  const heldItems = ($: cheerio.CheerioAPI) =>
    $('ul.held li')
      .map((_, li) => $(li).text().replace(/\s+/g, ' ').trim())
      .get();

  before(async () => {
    for (const [key, name, version] of [
      ['old', 'fresh-lib', '1.0'],
      ['new', 'fresh-lib', '2.0'],
      ['pre', 'fresh-lib', '0.9'],
      ['brand', 'brand-new', '0.1'],
      ['evil', 'evil-pkg', '1.0'],
      ['mine', 'acme-internal', '1.0'],
    ] as const) {
      d[key] = await buildWheel(join(dir, key), { name, version });
    }
    up = await startFakeUpstream();
    up.addProject('fresh-lib', [d.pre!, d.old!, d.new!], {
      uploadTime: { [d.pre!.filename]: new Date(start - 60 * DAY), [d.old!.filename]: new Date(start - 30 * DAY), [d.new!.filename]: new Date(start - HOUR) },
    });
    up.addProject('brand-new', [d.brand!], { uploadTime: new Date(start - 2 * HOUR) });
    up.addProject('evil-pkg', [d.evil!], { uploadTime: new Date(start - 30 * DAY) });
    // The deny list names a private project too (acme*): the policy never applies to private projects.
    server = await startLarder({ upstream: up.url, minReleaseAge: 3 * DAY, deny: ['evil-pkg', 'fresh-lib<0.95', 'acme*'] }, undefined, { clock });
    await server.addUser('alice', 'alice-password');
    await publish(server.url, basicAuth('alice', 'alice-password'), d.mine!);
  });
  after(async () => {
    await server.close();
    await up.close();
  });

  test('a project page lists the releases held back, with the rule and when each becomes available, until the clock passes it', async () => {
    const visibleAt = start - HOUR + 3 * DAY;
    const { status, $ } = await page('/project/fresh-lib/');
    assert.equal(status, 200);
    assert.equal($('h1').text(), 'fresh-lib 1.0', 'the latest release offered');
    assert.deepEqual(heldItems($), [
      `2.0 held back release cooldown (LARDER_MIN_RELEASE_AGE); available from 2026-06-03 23:00 UTC fresh-lib 2.0 is held back by larder's release cooldown: uploaded 2026-05-31T23:00:00.000Z, less than 3d ago (LARDER_MIN_RELEASE_AGE); it becomes available ${new Date(visibleAt).toISOString()}, or now with: larder policy allow fresh-lib==2.0`,
      "0.9 held back deny list (LARDER_DENY); not while the rule stands fresh-lib 0.9 is refused by larder's deny list (fresh-lib<0.95)",
    ]);
    assert.equal($('ul.held time').attr('datetime'), new Date(visibleAt).toISOString());
    assert.equal($('ul.held a').first().attr('href'), '/project/fresh-lib/2.0/');

    const held = await page('/project/fresh-lib/2.0/');
    assert.equal(held.status, 200);
    assert.equal(held.$('h1').text(), 'fresh-lib 2.0');
    assert.match(
      held.$('.notice').text(),
      /^Held back by policy \(release cooldown \(LARDER_MIN_RELEASE_AGE\)\): this release is not offered to installers; available from 2026-06-03 23:00 UTC\.$/,
    );
    assert.equal(held.$('main a[href="/project/fresh-lib/"]').text(), 'The releases offered');

    clock.advance(3 * DAY - HOUR - 1);
    assert.equal(heldItems((await page('/project/fresh-lib/')).$).length, 2, 'a millisecond before, 2.0 is still held back');
    clock.advance(1);
    const later = await page('/project/fresh-lib/');
    assert.equal(later.$('h1').text(), 'fresh-lib 2.0');
    assert.deepEqual(
      heldItems(later.$).map((item) => item.split(' ')[0]),
      ['0.9'],
    );
    assert.equal((await page('/project/fresh-lib/2.0/')).$('.notice').length, 0, 'the release page is an ordinary one now');
    clock.advance(-(3 * DAY - HOUR));
  });

  test('a project none of whose releases is offered yet gets a page saying so, not "not found"', async () => {
    const { status, $ } = await page('/project/brand-new/');
    assert.equal(status, 200);
    assert.equal($('h1').text(), 'brand-new');
    assert.match($('.notice').text(), /no release of this upstream project is offered to installers yet/);
    assert.deepEqual(
      heldItems($).map((item) => item.split(';')[0]),
      ['0.1 held back release cooldown (LARDER_MIN_RELEASE_AGE)'],
    );
    assert.equal($('main a[href="/project/brand-new/"]').length, 0, 'no link to releases offered: there are none');
    assert.equal((await page('/project/brand-new/9.9/')).status, 404, 'a version that does not exist is still not found');
  });

  test('a refused project answers the status of its API refusal, with the rule and the reason', async () => {
    const { status, $ } = await page('/project/evil-pkg/');
    assert.equal(status, 403);
    assert.match($('.notice').text(), /^Refused by policy \(deny list \(LARDER_DENY\)\): this index does not serve this upstream project\.$/);
    assert.equal($('p.reason').text(), "evil-pkg is refused by larder's deny list (evil-pkg)");
    assert.equal($('header.site').length, 1, 'in the site layout');
  });

  test('a private project never shows a hold, though a deny pattern names it', async () => {
    const { status, $ } = await page('/project/acme-internal/');
    assert.equal(status, 200);
    assert.equal($('h1').text(), 'acme-internal 1.0');
    assert.equal($('#held-h').length, 0);
  });

  test('a failing page request is answered in the site layout with the one-line reason', async () => {
    const res = await fetch(`${server.url}/project/${'a'.repeat(300)}/`);
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    const $ = cheerio.load(await res.text());
    assert.equal($('h1').text(), 'Bad Request');
    assert.match($('.notice').text(), /is not a valid project name/);
    assert.equal($('header.site form.search').length, 1);
  });
});
