/**
 * Debian's chromium driven by playwright-core, for the browser tests (LARDER_TEST_CHROMIUM or /usr/bin/chromium).
 * Screenshots go to test/.artifacts/ (ignored by git).
 */
import { access, mkdir } from 'node:fs/promises';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.LARDER_TEST_CHROMIUM || '/usr/bin/chromium';
export const ARTIFACTS = fileURLToPath(new URL('../.artifacts/', import.meta.url));

/**
 * Playwright passes most of these already; naming them keeps Chromium off the network (updates, sync, field
 * trials) on a machine without one, whatever playwright's defaults become.
 */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-gpu'];

/** Makes the screenshot folder and starts chromium; null when it is not installed (see needBrowser). */
async function launchChromium(): Promise<Browser | null> {
  await mkdir(ARTIFACTS, { recursive: true });
  const present = await access(CHROMIUM).then(
    () => true,
    () => false,
  );
  return present ? chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }) : null;
}

/** The browser, or null after skipping the test; without chromium under CI the test fails instead. */
function needBrowser(browser: Browser | null, t: { skip(reason: string): void }): Browser | null {
  if (browser) return browser;
  const reason = `no chromium at ${CHROMIUM} (apt-get install chromium, or set LARDER_TEST_CHROMIUM)`;
  if (process.env.CI) throw new Error(`${reason}; browser tests must run in CI`);
  t.skip(reason);
  return null;
}

/** Chromium for the tests of one suite, started by a `before` hook and closed by an `after` hook; each test asks the returned function for it (as needBrowser). */
export function suiteChromium(): (t: { skip(reason: string): void }) => Browser | null {
  let browser: Browser | null = null;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });
  return (t) => needBrowser(browser, t);
}

/** A fresh context with one page; `errors` collects the page's uncaught script errors. */
export async function openPage(browser: Browser, options: BrowserContextOptions = {}): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  return { context, page, errors };
}

/** Fills and sends the login form the page shows. */
export async function submitLogin(page: Page, user: string, password: string): Promise<void> {
  await page.getByLabel('User name').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/** Logs in from the login page and waits for the home page it leads to. */
export async function logIn(page: Page, url: string, user: string, password: string): Promise<void> {
  await page.goto(`${url}/account/login/`);
  await submitLogin(page, user, password);
  await page.waitForURL(`${url}/`);
}
