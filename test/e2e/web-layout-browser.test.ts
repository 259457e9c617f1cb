/**
 * The layout of every web page in a real browser (Debian's chromium via playwright-core, as in
 * web-ui-browser.test.ts), with realistic long content: a 90-character wheel name, long project and user
 * names, a long host in every snippet, long lines in the description. At 375 px no page scrolls sideways
 * (blocks of code may scroll inside themselves); on a desktop the file names wrap so that the SHA256 column
 * stays in view. Also in the browser: the policy's holds on a project page and /stats/. Screenshots go to
 * test/.artifacts/ (ignored by git).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { ARTIFACTS, logIn, openPage, suiteChromium } from '../helpers/browser.js';
import { eventually } from '../helpers/eventually.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { publish } from '../helpers/upload-form.js';

const DAY = 86_400_000;

const LONG_PROJECT = 'Acme.Extraordinarily-Long-Project-Name-For-Layout';
const LONG_NORMALIZED = 'acme-extraordinarily-long-project-name-for-layout';
const LONG_USER = 'alice-with-a-rather-long-user-name-for-the-header';

const DESCRIPTION = [
  '# Layout probe',
  '',
  '```sh',
  `pip install --index-url https://user:${'p'.repeat(40)}@larder-with-a-long-host-name.internal.example.com:3142/simple/ ${LONG_PROJECT}==1.0.0rc1`,
  '```',
  '',
  `See https://example.test/${'documentation/'.repeat(12)}index.html for everything.`,
  '',
  '| option | default | meaning |',
  '|---|---|---|',
  `| \`${'very_long_option_name_'.repeat(6)}\` | \`${'x'.repeat(60)}\` | what it does |`,
].join('\n');

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** How far the page is wider than the window (0 or less: no sideways scrolling). */
async function overflow(page: Page): Promise<number> {
  return (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
}

describe('web page layout in chromium', () => {
  const start = Date.UTC(2026, 5, 1);
  let up: FakeUpstream;
  let server: TestLarder;
  const browserFor = suiteChromium();
  const dir = suiteTempDir('larder-web-layout-');
  const d: Record<string, BuiltDist> = {};

  before(async () => {
    d.long = await buildWheel(join(dir, 'long'), {
      name: LONG_PROJECT,
      version: '1.0.0rc1',
      pythonTag: 'cp312',
      abiTag: 'cp312',
      platformTag: 'manylinux_2_17_x86_64',
      summary: `A project whose name and files are long: ${'words without end '.repeat(4)}`,
    });
    assert.ok(d.long.filename.length >= 90, `${d.long.filename} has ${d.long.filename.length} characters`);
    d.old = await buildWheel(join(dir, 'old'), { name: 'fresh-lib', version: '1.0' });
    d.new = await buildWheel(join(dir, 'new'), { name: 'fresh-lib', version: '2.0' });
    d.brand = await buildWheel(join(dir, 'brand'), { name: 'brand-new', version: '0.1' });
    d.evil = await buildWheel(join(dir, 'evil'), { name: 'evil-pkg', version: '1.0' });
    up = await startFakeUpstream();
    up.addProject('fresh-lib', [d.old!, d.new!], {
      uploadTime: { [d.old!.filename]: new Date(start - 30 * DAY), [d.new!.filename]: new Date(start - 3_600_000) },
    });
    up.addProject('brand-new', [d.brand!], { uploadTime: new Date(start - 3_600_000) });
    up.addProject('evil-pkg', [d.evil!], { uploadTime: new Date(start - 30 * DAY) });
    server = await startLarder(
      { upstream: up.url, minReleaseAge: 3 * DAY, deny: ['evil-pkg'], publicUrl: 'http://larder-with-a-long-host-name.internal.example.com:3142' },
      undefined,
      { clock: new ManualClock(start) },
    );
    await server.addUser(LONG_USER, 'alice-password');
    await publish(server.url, basicAuth(LONG_USER, 'alice-password'), d.long, {
      description: DESCRIPTION,
      description_content_type: 'text/markdown',
      project_urls: [`Documentation, https://example.test/${'docs/'.repeat(30)}`],
      license_expression: 'Apache-2.0 OR MIT OR BSD-3-Clause OR LicenseRef-Acme-Proprietary-Extended-Terms',
    });
    // A real cached upstream file, for /stats/.
    assert.equal((await fetch(`${server.url}/packages/fresh-lib/${d.old!.filename}`).then((r) => r.arrayBuffer())).byteLength, d.old!.size);
    await eventually(async () => (await server.larder.storage.cachedFiles.totals()).files === 1, 'the download is recorded');
  });
  after(async () => {
    await server.close();
    await up.close();
  });

  /** Every kind of page, with the status it answers. */
  const PAGES: [path: string, status: number][] = [
    ['/', 200],
    [`/search/?q=${'extraordinarily-long-project-name-'.repeat(5)}`, 200],
    ['/search/?q=acme', 200],
    [`/project/${LONG_NORMALIZED}/`, 200],
    [`/project/${LONG_NORMALIZED}/1.0.0rc1/`, 200],
    ['/project/fresh-lib/', 200],
    ['/project/fresh-lib/2.0/', 200],
    ['/project/brand-new/', 200],
    ['/project/evil-pkg/', 403],
    ['/help/', 200],
    ['/stats/', 200],
    ['/account/login/', 200],
    [`/project/no-such-project-${'x'.repeat(150)}/`, 404],
    [`/project/${'a'.repeat(300)}/`, 400],
  ];

  test('at 375 px no page scrolls sideways, logged out or logged in; code blocks scroll inside themselves', async (t) => {
    const b = browserFor(t);
    if (!b) return;
    // A plain 375 px window: with phone emulation (isMobile) Chromium widens the layout viewport to fit what
    // overflows, which would hide the very overflow this test looks for.
    const { context, page } = await openPage(b, { viewport: { width: 375, height: 740 } });
    for (const [path, status] of PAGES) {
      const res = await page.goto(`${server.url}${path}`);
      assert.equal(res?.status(), status, path);
      assert.equal(await page.locator('header.site').count(), 1, `${path} is in the site layout`);
      assert.ok((await overflow(page)) <= 0, `${path} is ${await overflow(page)}px wider than the 375px screen`);
      await page.screenshot({ path: join(ARTIFACTS, `layout-375${path.slice(0, 40).replace(/[^a-z0-9]+/g, '-')}.png`), fullPage: true });
    }
    // The content is long enough to matter: the install line is wider than its block, which scrolls.
    await page.goto(`${server.url}/project/${LONG_NORMALIZED}/`);
    const pre = (await page
      .locator('.copyable pre')
      .first()
      .evaluate((el) => [el.scrollWidth, el.clientWidth])) as [number, number];
    assert.ok(pre[0] > pre[1], `the install line (${pre[0]}px) scrolls inside its ${pre[1]}px block`);
    const hash = await page.locator('td.hash').boundingBox();
    assert.ok(hash && hash.x >= 0 && hash.x + hash.width <= 375, `the SHA256 is on screen: ${JSON.stringify(hash)}`);

    await logIn(page, server.url, LONG_USER, 'alice-password');
    for (const path of ['/', `/project/${LONG_NORMALIZED}/`]) {
      await page.goto(`${server.url}${path}`);
      assert.match(String(await page.locator('.viewer').textContent()), new RegExp(LONG_USER));
      assert.ok((await overflow(page)) <= 0, `${path}, logged in, is ${await overflow(page)}px wider than the screen`);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'layout-375-logged-in.png'), fullPage: true });
    await context.close();
  });

  test('on a desktop, long file names wrap and the SHA256 column stays in view', async (t) => {
    const b = browserFor(t);
    if (!b) return;
    for (const width of [1024, 1280]) {
      const { context, page } = await openPage(b, { viewport: { width, height: 900 } });
      await page.goto(`${server.url}/project/${LONG_NORMALIZED}/`);
      assert.ok((await overflow(page)) <= 0);
      const geometry = (await page.evaluate(`(() => {
        const box = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
        const wrap = document.querySelector('.table-wrap');
        const link = document.querySelector('td.file a');
        return {
          column: box(wrap.parentElement),
          table: box(document.querySelector('table.files')),
          shaHeader: box([...document.querySelectorAll('table.files th')].find((th) => th.textContent === 'SHA256')),
          hash: box(document.querySelector('td.hash')),
          wrapScrolls: wrap.scrollWidth > wrap.clientWidth,
          linkLines: link.getClientRects().length,
        };
      })()`)) as {
        column: Box;
        table: Box;
        shaHeader: Box;
        hash: Box;
        wrapScrolls: boolean;
        linkLines: number;
      };
      const where = `${width}px: ${JSON.stringify(geometry)}`;
      assert.equal(geometry.wrapScrolls, false, `the file table needs no scrolling: ${where}`);
      assert.ok(geometry.table.right <= geometry.column.right + 0.5, `the table stays in its column: ${where}`);
      assert.ok(geometry.shaHeader.left >= geometry.table.left && geometry.shaHeader.right <= width, `the SHA256 heading is in view: ${where}`);
      assert.ok(geometry.hash.right <= geometry.table.right + 0.5 && geometry.hash.right <= width, `the hash is in view: ${where}`);
      assert.ok(geometry.linkLines > 1, `the file name wraps: ${where}`);
      await page.screenshot({ path: join(ARTIFACTS, `layout-${width}-files.png`), fullPage: true });
      await context.close();
    }
  });

  test('a project page shows the held-back release with its rule and when it becomes available; /stats/ counts private and cached bytes apart', async (t) => {
    const b = browserFor(t);
    if (!b) return;
    const { context, page } = await openPage(b, { viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/project/fresh-lib/`);
    const held = page.getByRole('region', { name: 'Held back by policy' });
    assert.match(String(await held.textContent()), /2\.0\s+held back\s+release cooldown \(LARDER_MIN_RELEASE_AGE\); available from 2026-06-03 23:00 UTC/);
    await held.getByRole('link', { name: '2.0' }).click();
    await page.waitForURL(`${server.url}/project/fresh-lib/2.0/`);
    assert.match(String(await page.getByRole('note').textContent()), /Held back by policy/);
    await page.screenshot({ path: join(ARTIFACTS, 'layout-held-release.png'), fullPage: true });

    await page.getByRole('link', { name: 'Statistics' }).click();
    await page.waitForURL(`${server.url}/stats/`);
    const totals = page.getByRole('region', { name: 'Totals' });
    assert.match(
      String(await totals.locator('dd').nth(0).textContent()),
      new RegExp(`^1 project, 1 file, .*\\(${d.long!.size.toLocaleString('en')} bytes\\)$`),
    );
    assert.match(String(await totals.locator('dd').nth(1).textContent()), new RegExp(`^1 project, 1 file, ${d.old!.size} B$`));
    await page.screenshot({ path: join(ARTIFACTS, 'layout-stats.png'), fullPage: true });
    await context.close();
  });
});
