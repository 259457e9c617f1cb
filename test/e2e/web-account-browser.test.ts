/**
 * The account and user pages in a real browser (Debian's chromium via playwright-core, as
 * web-ui-browser.test.ts): log in, create a token, see it once, upload with it (twine), revoke it; change
 * the password with JavaScript off; an administrator adds, promotes and removes a user; at 375 px wide no
 * account page scrolls sideways. Screenshots go to test/.artifacts/.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { findClients, requireClients, twineUpload } from '../fixtures/clients.js';
import { buildWheel } from '../fixtures/dists.js';
import { addAliceWithRelease } from '../helpers/alice-release.js';
import { ARTIFACTS, logIn, openPage, suiteChromium } from '../helpers/browser.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { uploadForm } from '../helpers/upload-form.js';

/**
 * How much wider than the screen the page is. Mobile emulation widens `innerWidth` to fit content that
 * overflows (the page is zoomed out), so the screen's own width is compared too.
 */
async function sidewaysOverflow(page: Page, screenWidth: number): Promise<number> {
  const [scrollWidth, innerWidth] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
  return scrollWidth - Math.min(innerWidth, screenWidth);
}

describe('account pages in chromium', () => {
  let server: TestLarder;
  const browserFor = suiteChromium();
  const dir = suiteTempDir('larder-web-account-e2e-');

  before(async () => {
    server = await startLarder({});
    await addAliceWithRelease(server, dir, { name: 'acme-widgets', version: '1.0' });
    await server.addUser('root', 'root-password', true);
  });
  after(async () => {
    await server.close();
  });

  test('log in, create a token for one project, see it once, upload with it (twine), revoke it', async (t) => {
    const b = browserFor(t);
    if (!b) return;
    const { context, page, errors } = await openPage(b, { viewport: { width: 1280, height: 900 } });
    await logIn(page, server.url, 'alice', 'alice-password');
    await page.getByRole('link', { name: 'Account' }).click();
    await page.waitForURL(`${server.url}/account/`);
    assert.equal(String(await page.getByRole('heading', { level: 1 }).textContent()), 'Your account');

    await page.getByLabel('Description (what the token is for)').fill('CI uploads of acme-widgets');
    await page.getByLabel('Only these projects:').check();
    await page.getByLabel('acme-widgets').check();
    await page.getByLabel('Expires after').selectOption({ label: '30 days' });
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('heading', { name: 'Token created' }).waitFor();
    const token = String(await page.locator('[data-copy="API token"] pre').textContent()).trim();
    assert.match(token, /^larder-[A-Za-z0-9_-]{43}$/);
    assert.match(String(await page.getByRole('status').textContent()), /only time it is shown/);
    assert.match(String(await page.locator('[data-copy=".pypirc"] pre').textContent()), new RegExp(`username = __token__\\npassword = ${token}`));
    assert.equal(await page.getByRole('button', { name: 'Copy: API token' }).count(), 1, 'the script adds a copy button');
    await page.screenshot({ path: join(ARTIFACTS, 'account-token-created.png'), fullPage: true });

    const wheel = await buildWheel(dir, { name: 'acme-widgets', version: '1.1' });
    const clients = await findClients();
    if (await requireClients(t, ['twine'], clients)) {
      const uploaded = await twineUpload(`${server.url}/legacy/`, [wheel.path], {
        username: '__token__',
        password: token,
        twine: clients.twine ?? undefined,
        timeoutMs: 60_000,
      });
      assert.equal(uploaded.code, 0, `${uploaded.stdout}\n${uploaded.stderr}`);
      assert.equal((await server.larder.meta.getFile('acme-widgets', wheel.filename))?.uploader, 'alice');
    }

    await page.getByRole('link', { name: 'Back to your account' }).click();
    await page.waitForURL(`${server.url}/account/`);
    const [record] = await server.larder.meta.listTokens('alice');
    assert.ok(record);
    const row = page.getByRole('row').filter({ hasText: record.id });
    assert.match(String(await row.textContent()), /CI uploads of acme-widgets\s*acme-widgets/);
    assert.ok(!(await page.content()).includes(token), 'the token is not shown again');
    await page.getByRole('button', { name: `Revoke token ${record.id}` }).click();
    await page.getByText('The token was revoked: it no longer works.').waitFor();
    assert.equal(await page.getByText('You have no API tokens.').count(), 1);
    const after = await fetch(`${server.url}/legacy/`, {
      method: 'POST',
      headers: { Authorization: basicAuth('__token__', token) },
      body: await uploadForm(await buildWheel(dir, { name: 'acme-widgets', version: '1.2' })),
    });
    assert.equal(after.status, 403, 'the revoked token is refused');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('with JavaScript off, a password change works and the other browser is logged out', async (t) => {
    const b = browserFor(t);
    if (!b) return;
    await server.addUser('carol', 'carol-password');
    const { context: other, page: otherPage } = await openPage(b);
    await logIn(otherPage, server.url, 'carol', 'carol-password');
    const { context, page } = await openPage(b, { javaScriptEnabled: false });
    await logIn(page, server.url, 'carol', 'carol-password');
    await page.goto(`${server.url}/account/`);
    await page.getByLabel('Current password').fill('carol-password');
    await page.getByLabel(/^New password \(at least/).fill('carol-new-password');
    await page.getByLabel('New password again').fill('carol-new-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password was changed. Your other logins have ended.').waitFor();
    assert.match(String(await page.locator('.viewer').textContent()), /Logged in as carol/, 'this browser stays logged in');
    await otherPage.reload();
    assert.equal(await otherPage.getByRole('link', { name: 'Log in' }).count(), 1, 'the other browser is logged out');
    await logIn(otherPage, server.url, 'carol', 'carol-new-password');
    await other.close();
    await context.close();
  });

  test('an administrator adds a user, makes them an admin and removes them; a user gets 403', async (t) => {
    const b = browserFor(t);
    if (!b) return;
    const { context, page } = await openPage(b);
    await logIn(page, server.url, 'root', 'root-password');
    await page.goto(`${server.url}/account/`);
    await page.getByRole('link', { name: 'manage users' }).click();
    await page.waitForURL(`${server.url}/admin/users/`);
    await page.getByLabel('User name').fill('dave');
    await page.getByLabel(/^Password \(at least/).fill('dave-password');
    await page.getByLabel('Password again').fill('dave-password');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByText('User dave was added.').waitFor();
    await page.getByRole('button', { name: 'Make dave admin' }).click();
    await page.getByText('dave is now an administrator.').waitFor();
    assert.equal((await server.larder.meta.getUser('dave'))?.admin, true);
    const row = page.getByRole('row').filter({ hasText: 'dave' });
    await row.getByText('Remove…').click();
    await row.getByRole('button', { name: 'Remove dave' }).click();
    await page.getByText('User dave was removed, with their tokens and roles.').waitFor();
    assert.equal(await server.larder.meta.getUser('dave'), undefined);

    const { context: userContext, page: userPage } = await openPage(b);
    await logIn(userPage, server.url, 'alice', 'alice-password');
    const refused = await userPage.goto(`${server.url}/admin/users/`);
    assert.equal(refused?.status(), 403);
    assert.equal(await userPage.getByText('Only administrators may manage users.').count(), 1);
    await userContext.close();
    await context.close();
  });

  test('at 375 px wide the account, token and users pages do not scroll sideways', async (t) => {
    const b = browserFor(t);
    if (!b) return;
    for (const i of [1, 2, 3]) {
      const token = await server.addToken('root', [`a-rather-long-project-name-number-${i}-for-the-scope-column`]);
      assert.ok(token);
    }
    const phone = { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true };
    const { context, page } = await openPage(b, phone);
    await logIn(page, server.url, 'root', 'root-password');
    const check = async (name: string) => {
      const overflow = await sidewaysOverflow(page, phone.viewport.width);
      await page.screenshot({ path: join(ARTIFACTS, `${name}-phone.png`), fullPage: true });
      assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than the screen`);
    };
    await page.goto(`${server.url}/account/`);
    await check('account');
    await page.getByLabel('Description (what the token is for)').fill('phone');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('heading', { name: 'Token created' }).waitFor();
    await check('account-token-created');
    await page.goto(`${server.url}/admin/users/`);
    await check('admin-users');
    await context.close();
  });
});
