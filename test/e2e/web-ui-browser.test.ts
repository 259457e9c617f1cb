/**
 * The web pages in a real browser: Debian's chromium driven by playwright-core (LARDER_TEST_CHROMIUM or
 * /usr/bin/chromium). Search, navigation, login, yank/unyank, the XSS probes (asserted on `window` state),
 * a cross-site forged POST, JavaScript disabled, keyboard and phone layout. Screenshots go to
 * test/.artifacts/ (ignored by git).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { buildWheel } from '../fixtures/dists.js';
import { ARTIFACTS, logIn, openPage, submitLogin, suiteChromium } from '../helpers/browser.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { startOtherSite } from '../helpers/other-site.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { publish } from '../helpers/upload-form.js';

/** Every probe would set `window.xss` if the browser ran it. */
const HOSTILE = [
  '# Acme widgets',
  '',
  'Widgets for **everyone**. See [the docs](https://example.test/docs).',
  '',
  '<script>window.xss = "script"</script>',
  '<img src="/nothing.png" onerror="window.xss = \'onerror\'">',
  '<a id="js-link" href="javascript:window.xss=\'javascript-link\'">a javascript: link</a>',
  '[markdown javascript link](javascript:window.xss=1)',
  '<svg onload="window.xss = \'svg\'"></svg>',
  '<iframe srcdoc="<script>parent.xss = 1</script>"></iframe>',
  '',
  '```python',
  'import acme_widgets',
  '```',
].join('\n');

/** A well-behaved project, for the screenshot the README shows. */
const FRIENDLY = [
  '# Acme Tools',
  '',
  'Small, dependable helpers for **Acme** services: retries, settings and structured logs.',
  '',
  '## Install',
  '',
  '```sh',
  'pip install acme-tools',
  '```',
  '',
  '## Use',
  '',
  '```python',
  'from acme_tools import retry',
  '',
  '@retry(times=3)',
  'def fetch(): ...',
  '```',
  '',
  'See the [changelog](https://example.test/acme-tools/changes) for what is new.',
].join('\n');

/** A page of another site whose form posts to larder's yank URL (a cross-site request forgery). */
function startEvilSite(target: string) {
  return startOtherSite({
    '/': `<form id="f" method="post" action="${target}"><input name="reason" value="forged"></form><script>document.getElementById('f').submit()</script>`,
  });
}

async function xssState(page: Page): Promise<unknown> {
  return page.evaluate('window.xss ?? null');
}

describe('web UI in chromium', () => {
  let server: TestLarder;
  const browserFor = suiteChromium();
  const dir = suiteTempDir('larder-web-e2e-');

  before(async () => {
    // Snippets show the public URL; the pages link relative to the host, so the browser stays on the test server.
    server = await startLarder({ publicUrl: 'http://larder.example:3142' });
    await server.addUser('alice', 'alice-password');
    await server.addUser('mallory', 'mallory-password');
    const auth = basicAuth('alice', 'alice-password');
    for (const version of ['1.0', '1.1']) {
      const wheel = await buildWheel(dir, { name: 'Acme.Widgets', version, requiresPython: '>=3.9', summary: 'Widgets for everyone' });
      await publish(server.url, auth, wheel, {
        description: HOSTILE,
        description_content_type: 'text/markdown',
        project_urls: ['Documentation, https://example.test/docs', 'Source, https://example.test/src'],
        license_expression: 'MIT',
      });
    }
    for (const version of ['2.3.1', '2.4.0']) {
      for (const wheel of [
        await buildWheel(dir, { name: 'Acme.Tools', version, requiresPython: '>=3.10', summary: 'Retries, settings and logs for Acme services' }),
        await buildWheel(dir, {
          name: 'Acme.Tools',
          version,
          requiresPython: '>=3.10',
          summary: 'Retries, settings and logs for Acme services',
          pythonTag: 'py3',
          platformTag: 'manylinux_2_28_x86_64',
          abiTag: 'none',
        }),
      ]) {
        await publish(server.url, auth, wheel, {
          description: FRIENDLY,
          description_content_type: 'text/markdown',
          project_urls: [
            'Documentation, https://example.test/acme-tools/docs',
            'Source, https://example.test/acme-tools/src',
            'Changelog, https://example.test/acme-tools/changes',
          ],
          license_expression: 'Apache-2.0',
          author: 'Acme Platform Team',
        });
      }
    }
  });
  after(async () => {
    await server.close();
  });

  test('search, navigate, and the description probes do not run', async (t) => {
    const b = browserFor(t);
    if (!b) return;
    const { context, page, errors } = await openPage(b, { viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/`);
    await page.screenshot({ path: join(ARTIFACTS, 'home.png'), fullPage: true });
    await page.getByRole('searchbox', { name: 'Search projects' }).first().fill('widg');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/search\/\?q=widg/);
    assert.match(String(await page.getByRole('status').textContent()), /1 project matches widg/);
    await page.getByRole('link', { name: 'Acme.Widgets' }).click();
    await page.waitForURL(`${server.url}/project/acme-widgets/`);
    assert.equal(String(await page.getByRole('heading', { level: 1 }).first().textContent()), 'Acme.Widgets 1.1');
    assert.equal(String(await page.locator('.description h1').textContent()), 'Acme widgets');
    await page.waitForLoadState('load');
    assert.equal(await xssState(page), null, 'no probe ran on load');
    assert.equal(await page.locator('.description script, .description iframe, .description svg, .description [onerror]').count(), 0);
    // The javascript: link survives only as text; clicking it must do nothing.
    assert.equal(await page.locator('.description a[href^="javascript"]').count(), 0);
    await page.getByText('a javascript: link').click();
    assert.equal(await xssState(page), null, 'clicking the link ran nothing');
    assert.equal(await page.getByRole('link', { name: 'Documentation' }).getAttribute('rel'), 'nofollow noopener noreferrer');
    assert.deepEqual(errors, []);
    await page.screenshot({ path: join(ARTIFACTS, 'xss-probes.png'), fullPage: true });
    await page.getByRole('link', { name: '1.0', exact: true }).click();
    await page.waitForURL(`${server.url}/project/acme-widgets/1.0/`);
    assert.match(
      String(await page.locator('.copyable pre').first().textContent()),
      /^pip install --index-url http:\/\/larder\.example:3142\/simple\/ --trusted-host larder\.example Acme\.Widgets==1\.0$/,
    );
    assert.equal((await page.getByRole('button', { name: /^Copy/ }).count()) > 0, true, 'the script adds copy buttons');
    await page.goto(`${server.url}/project/acme-tools/`);
    await page.screenshot({ path: join(ARTIFACTS, 'project-page.png'), fullPage: true });
    await context.close();
  });

  test('an owner logs in, yanks with a reason and unyanks; another user sees no controls', async (t) => {
    const b = browserFor(t);
    if (!b) return;
    const { context, page } = await openPage(b);
    await page.goto(`${server.url}/project/acme-widgets/1.0/`);
    assert.equal(await page.getByRole('button', { name: /Yank/ }).count(), 0, 'no controls before logging in');
    await page.getByRole('link', { name: 'Log in' }).click();
    await submitLogin(page, 'alice', 'alice-password');
    await page.waitForURL(`${server.url}/project/acme-widgets/1.0/`);
    assert.match(String(await page.locator('.viewer').textContent()), /Logged in as alice/);
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'larder_session');
    assert.ok(session?.httpOnly && session.sameSite === 'Strict');
    assert.equal(await page.evaluate('document.cookie'), '', 'the session cookie is not readable by scripts');

    await page.getByLabel('Reason (shown to pip users)').fill('broken build');
    await page.getByRole('button', { name: 'Yank 1.0' }).click();
    await page.getByText('The release was yanked.').waitFor();
    assert.match(String(await page.locator('.notice[role="note"]').textContent()), /Yanked: broken build/);
    const json = (await (await fetch(`${server.url}/pypi/acme-widgets/1.0/json`)).json()) as { info: { yanked: boolean; yanked_reason: string } };
    assert.deepEqual([json.info.yanked, json.info.yanked_reason], [true, 'broken build']);
    await page.screenshot({ path: join(ARTIFACTS, 'yanked.png') });
    await page.getByRole('button', { name: 'Unyank 1.0' }).click();
    await page.getByText('The release was unyanked.').waitFor();
    assert.equal(((await (await fetch(`${server.url}/pypi/acme-widgets/1.0/json`)).json()) as { info: { yanked: boolean } }).info.yanked, false);

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${server.url}/`);
    assert.equal(await page.getByRole('link', { name: 'Log in' }).count(), 1);

    const { context: other, page: otherPage } = await openPage(b);
    await otherPage.goto(`${server.url}/account/login/?next=/project/acme-widgets/1.0/`);
    await submitLogin(otherPage, 'mallory', 'mallory-password');
    await otherPage.waitForURL(`${server.url}/project/acme-widgets/1.0/`);
    assert.equal(await otherPage.getByRole('button', { name: /Yank/ }).count(), 0);
    await other.close();
    await context.close();
  });

  test('a form posted from another site gets 403 and changes nothing', async (t) => {
    const b = browserFor(t);
    if (!b) return;
    const { context, page } = await openPage(b);
    await logIn(page, server.url, 'alice', 'alice-password');
    const evil = await startEvilSite(`${server.url}/project/acme-widgets/1.0/yank`);
    try {
      const answer = page.waitForResponse((res) => res.url().endsWith('/project/acme-widgets/1.0/yank'));
      await page.goto(evil.url);
      assert.equal((await answer).status(), 403);
      assert.equal(((await (await fetch(`${server.url}/pypi/acme-widgets/1.0/json`)).json()) as { info: { yanked: boolean } }).info.yanked, false);
    } finally {
      await evil.close();
      await context.close();
    }
  });

  test('with JavaScript disabled: search, navigate, log in and yank all work', async (t) => {
    const b = browserFor(t);
    if (!b) return;
    const { context, page } = await openPage(b, { javaScriptEnabled: false });
    await page.goto(`${server.url}/`);
    await page.getByRole('searchbox', { name: 'Search projects' }).first().fill('acme');
    await page.getByRole('button', { name: 'Search' }).first().click();
    await page.getByRole('link', { name: 'Acme.Widgets' }).click();
    await page.waitForURL(`${server.url}/project/acme-widgets/`);
    assert.equal(await page.getByRole('button', { name: /^Copy/ }).count(), 0, 'no copy buttons without the script');
    assert.match(String(await page.locator('.copyable pre').first().textContent()), /pip install/);
    await page.getByRole('link', { name: 'Log in' }).click();
    await submitLogin(page, 'alice', 'alice-password');
    await page.waitForURL(`${server.url}/project/acme-widgets/`);
    await page.getByRole('button', { name: 'Yank 1.1' }).click();
    await page.getByText('The release was yanked.').waitFor();
    await page.getByRole('button', { name: 'Unyank 1.1' }).click();
    await page.getByText('The release was unyanked.').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'no-javascript.png') });
    await context.close();
  });

  test('keyboard: the first Tab reaches the skip link; a phone-sized screen needs no sideways scrolling', async (t) => {
    const b = browserFor(t);
    if (!b) return;
    const { context, page } = await openPage(b, { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    await page.goto(`${server.url}/project/acme-widgets/`);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate('document.activeElement?.id'), 'content');
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
    await page.screenshot({ path: join(ARTIFACTS, 'project-page-phone.png'), fullPage: true });
    await context.close();
  });
});
