/**
 * The cross-site publishing attack in a real browser (Debian's chromium via playwright-core): with
 * LARDER_READ_AUTH=true the browser holds HTTP Basic credentials for larder, and a page of another site
 * auto-submits forms to larder's /api/…/yank and /legacy/. Both are refused (403) and nothing changes.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { addAliceWithRelease, ALICE_AUTH as ALICE } from '../helpers/alice-release.js';
import { ARTIFACTS, openPage, suiteChromium } from '../helpers/browser.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';
import { escapeHtml, startOtherSite, type OtherSite } from '../helpers/other-site.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { uploadForm } from '../helpers/upload-form.js';

/** A page that posts a form-encoded yank, as soon as it loads. */
function yankPage(target: string): string {
  return `<form id="f" method="post" action="${escapeHtml(target)}"><input name="reason" value="forged"></form>
<script>document.getElementById('f').submit()</script>`;
}

/** A page that uploads `dist` (twine's form fields, the file put into a file input by script), as soon as it loads. */
async function uploadPage(target: string, dist: BuiltDist): Promise<string> {
  const inputs: string[] = [];
  for (const [name, value] of (await uploadForm(dist)).entries()) {
    if (typeof value === 'string') inputs.push(`<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`);
  }
  const bytes = (await readFile(dist.path)).toString('base64');
  return `<form id="f" method="post" enctype="multipart/form-data" action="${escapeHtml(target)}">
${inputs.join('\n')}
<input type="file" name="content">
</form>
<script>
const bytes = Uint8Array.from(atob('${bytes}'), (c) => c.charCodeAt(0));
const files = new DataTransfer();
files.items.add(new File([bytes], ${JSON.stringify(dist.filename)}, { type: 'application/octet-stream' }));
document.querySelector('input[type=file]').files = files.files;
document.getElementById('f').submit();
</script>`;
}

/** Opens the other site's page and returns larder's final answer to the form it posts (after any 401 challenge). */
async function forge(page: Page, pageUrl: string, target: string) {
  const answer = page.waitForResponse((res) => res.url() === target && res.status() !== 401);
  await page.goto(pageUrl);
  const res = await answer;
  return { status: res.status(), headers: await res.request().allHeaders(), text: await res.text() };
}

describe('cross-site forms in chromium, with read auth on', () => {
  let server: TestLarder;
  let evil: OtherSite;
  const browserFor = suiteChromium();
  const dir = suiteTempDir('larder-xsite-e2e-');
  let forged: BuiltDist;

  const yankUrl = () => `${server.url}/api/projects/acme-xsite/releases/1.0/yank`;
  const uploadUrl = () => `${server.url}/legacy/`;
  const releaseInfo = async () => {
    const res = await fetch(`${server.url}/pypi/acme-xsite/json`, { headers: { Authorization: ALICE } });
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { releases: Record<string, { yanked: boolean }[]> };
    return { versions: Object.keys(doc.releases).sort(), yanked: doc.releases['1.0']!.some((f) => f.yanked) };
  };

  before(async () => {
    server = await startLarder({ readAuth: true });
    await addAliceWithRelease(server, dir, { name: 'acme-xsite', version: '1.0' });
    forged = await buildWheel(dir, { name: 'acme-xsite', version: '6.6.6' });
    evil = await startOtherSite({ '/yank': yankPage(yankUrl()), '/upload': await uploadPage(uploadUrl(), forged) });
  });
  after(async () => {
    await evil?.close();
    await server.close();
  });

  test("another site's forms cannot yank or publish with the browser's Basic credentials", async (t) => {
    const b = browserFor(t);
    if (!b) return;
    const { context, page } = await openPage(b, { httpCredentials: { username: 'alice', password: 'alice-password', origin: new URL(server.url).origin } });
    try {
      // The browser is logged in to larder: the index answers it.
      const simple = await page.goto(`${server.url}/simple/acme-xsite/`);
      assert.equal(simple?.status(), 200);

      const yank = await forge(page, `${evil.url}yank`, yankUrl());
      assert.equal(yank.headers['sec-fetch-site'], 'cross-site', 'the browser marks the forged yank');
      assert.equal(yank.headers.origin, new URL(evil.url).origin);
      assert.equal(yank.status, 403, yank.text);
      assert.match(yank.text, /^Cross-site request refused: .*Sec-Fetch-Site: cross-site/);
      await page.screenshot({ path: join(ARTIFACTS, 'cross-site-yank-refused.png') });

      const upload = await forge(page, `${evil.url}upload`, uploadUrl());
      assert.equal(upload.headers['sec-fetch-site'], 'cross-site', 'the browser marks the forged upload');
      assert.match(upload.headers['content-type'] ?? '', /^multipart\/form-data; boundary=/);
      assert.equal(upload.status, 403, upload.text);
      assert.match(upload.text, /^Cross-site request refused/);

      assert.deepEqual(await releaseInfo(), { versions: ['1.0'], yanked: false }, 'nothing was yanked or published');
    } finally {
      await context.close();
    }
  });
});
