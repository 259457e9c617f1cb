/** The web pages over HTTP with a real server: rendering, sessions, form tokens, yanking, read auth. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildWheel } from '../fixtures/dists.js';
import { eventually } from '../helpers/eventually.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { publish } from '../helpers/upload-form.js';
import { cookieOf, formToken, postForm, postLogin } from '../helpers/web-forms.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const DESCRIPTION =
  '# Acme widgets\n\nSee <a href="javascript:alert(1)">this</a> <img src=x onerror="alert(2)"><script>alert(3)</script> and [docs](https://example.test/docs).';

/** Logs in from the project page's login link. */
const login = (url: string, user: string, password: string) => postLogin(url, user, password, '/project/acme-widgets/');

describe('web pages', () => {
  let server: TestLarder;
  const dir = suiteTempDir('larder-web-');
  const clock = new ManualClock(Date.UTC(2026, 10, 25, 12, 0, 0));

  before(async () => {
    server = await startLarder({}, undefined, { clock });
    await server.addUser('alice', 'alice-password');
    await server.addUser('bob', 'bob-password');
    const auth = basicAuth('alice', 'alice-password');
    for (const version of ['1.0', '1.1']) {
      const wheel = await buildWheel(dir, { name: 'Acme.Widgets', version, requiresPython: '>=3.9' });
      await publish(server.url, auth, wheel, {
        description: DESCRIPTION,
        description_content_type: 'text/markdown',
        // A javascript: project URL is refused at upload now; test/unit/web-renderers.test.ts renders one safely.
        project_urls: ['Source, https://example.test/src'],
      });
    }
  });
  after(async () => {
    await server.close();
  });

  test('/ says what the index is and gives set-up snippets with its own URL', async () => {
    const res = await fetch(`${server.url}/`, { headers: { Accept: 'text/html' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    assert.match(res.headers.get('content-security-policy')!, /script-src 'self'/);
    const html = await res.text();
    assert.match(html, /Private projects<\/dt><dd>1 /);
    assert.ok(html.includes(`pip install --index-url ${server.url}/simple/ --trusted-host 127.0.0.1 PROJECT`));
    assert.ok(html.includes(`url = &quot;${server.url}/simple/&quot;`), 'uv snippet');
    assert.match(html, /<main id="content"/);
  });

  test('the upload route and the simple index are unchanged', async () => {
    const res = await fetch(`${server.url}/simple/`, { headers: { Accept: 'application/vnd.pypi.simple.v1+json' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-security-policy'), null);
    assert.deepEqual(
      ((await res.json()) as { projects: { name: string }[] }).projects.map((p) => p.name),
      ['Acme.Widgets'],
    );
    const upload = await fetch(`${server.url}/`, { method: 'POST', body: new FormData() });
    assert.equal(upload.status, 401);
  });

  test('search finds private projects by part of the normalized name', async () => {
    const html = await (await fetch(`${server.url}/search/?q=Widg`)).text();
    assert.match(html, /1 project matches <strong>widg<\/strong>/);
    assert.ok(html.includes('href="/project/acme-widgets/"'));
    const none = await (await fetch(`${server.url}/search/?q=nothing-here`)).text();
    assert.match(none, /No project name contains/);
  });

  test('the project page shows the release, files, sanitized description and links', async () => {
    const res = await fetch(`${server.url}/project/Acme.Widgets/`, { redirect: 'manual' });
    assert.equal(res.status, 301);
    assert.equal(res.headers.get('location'), '/project/acme-widgets/');
    const page = await fetch(`${server.url}/project/acme-widgets/`);
    assert.equal(page.status, 200);
    // How long it takes inside larder is a bench figure (`npm run bench`, the `web` section), not a test.
    assert.match(page.headers.get('server-timing')!, /app;dur=/);
    const html = await page.text();
    assert.match(html, /<h1>Acme\.Widgets 1\.1<\/h1>/);
    assert.ok(html.includes('acme_widgets-1.1-py3-none-any.whl'));
    assert.ok(html.includes('<code>&gt;=3.9</code>'));
    assert.ok(html.includes('<h1>Acme widgets</h1>'), 'Markdown rendered');
    assert.ok(!/<script>alert|onerror|javascript:/i.test(html), 'no script, handler or javascript: link');
    assert.ok(html.includes('<a href="https://example.test/src" rel="nofollow noopener noreferrer">Source</a>'));
    assert.ok(html.includes(`pip install --index-url ${server.url}/simple/ --trusted-host 127.0.0.1 Acme.Widgets`));
    assert.ok(!html.includes('Manage this release'), 'no owner controls for anonymous viewers');
  });

  test('an unknown project or version is a 404 page', async () => {
    assert.equal((await fetch(`${server.url}/project/nope/`)).status, 404);
    assert.equal((await fetch(`${server.url}/project/acme-widgets/9.9/`)).status, 404);
    assert.equal((await fetch(`${server.url}/project/acme-widgets/1.0.0/`, { redirect: 'manual' })).headers.get('location'), '/project/acme-widgets/1.0/');
  });

  test('an owner logs in, yanks with a reason and unyanks; a forged POST gets 403', async () => {
    const wrong = await login(server.url, 'alice', 'nope');
    assert.equal(wrong.status, 403);
    assert.match(await wrong.text(), /Wrong user name or password/);
    const res = await login(server.url, 'alice', 'alice-password');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/project/acme-widgets/');
    assert.match(res.headers.get('set-cookie')!, /HttpOnly; SameSite=Strict/);
    const cookie = cookieOf(res);
    const page = await (await fetch(`${server.url}/project/acme-widgets/1.0/`, { headers: { Cookie: cookie } })).text();
    assert.ok(page.includes('Manage this release'));
    const csrf = formToken(page);

    const forgedNoToken = await fetch(`${server.url}/project/acme-widgets/1.0/yank`, {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams({ reason: 'forged' }),
      redirect: 'manual',
    });
    assert.equal(forgedNoToken.status, 403);
    const forgedNoCookie = await fetch(`${server.url}/project/acme-widgets/1.0/yank`, {
      method: 'POST',
      body: new URLSearchParams({ csrf }),
      redirect: 'manual',
    });
    assert.equal(forgedNoCookie.status, 403);
    assert.equal(((await (await fetch(`${server.url}/pypi/acme-widgets/1.0/json`)).json()) as { info: { yanked: boolean } }).info.yanked, false);

    const yank = await fetch(`${server.url}/project/acme-widgets/1.0/yank`, {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams({ csrf, reason: 'broken build' }),
      redirect: 'manual',
    });
    assert.equal(yank.status, 303);
    const json = (await (await fetch(`${server.url}/pypi/acme-widgets/1.0/json`)).json()) as { info: { yanked: boolean; yanked_reason: string } };
    assert.deepEqual([json.info.yanked, json.info.yanked_reason], [true, 'broken build']);
    const yankedPage = await (await fetch(`${server.url}${yank.headers.get('location')}`, { headers: { Cookie: cookie } })).text();
    assert.match(yankedPage, /<strong>Yanked:<\/strong> broken build/);
    assert.match(yankedPage, /The release was yanked/);

    const unyank = await fetch(`${server.url}/project/acme-widgets/1.0/unyank`, {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams({ csrf }),
      redirect: 'manual',
    });
    assert.equal(unyank.status, 303);
    assert.equal(((await (await fetch(`${server.url}/pypi/acme-widgets/1.0/json`)).json()) as { info: { yanked: boolean } }).info.yanked, false);
  });

  test('another user sees no controls and may not yank', async () => {
    const cookie = cookieOf(await login(server.url, 'bob', 'bob-password'));
    const page = await (await fetch(`${server.url}/project/acme-widgets/1.0/`, { headers: { Cookie: cookie } })).text();
    assert.ok(page.includes('Logged in as <strong>bob</strong>'));
    assert.ok(!page.includes('Manage this release'));
    const res = await postForm(`${server.url}/project/acme-widgets/1.0/yank`, cookie, page);
    assert.equal(res.status, 403);
  });

  test('a session ends after its lifetime and on log-out', async () => {
    const cookie = cookieOf(await login(server.url, 'alice', 'alice-password'));
    const page = await (await fetch(`${server.url}/help/`, { headers: { Cookie: cookie } })).text();
    assert.ok(page.includes('Logged in as <strong>alice</strong>'));
    const out = await postForm(`${server.url}/account/logout/`, cookie, page);
    assert.equal(out.status, 303);
    assert.match(out.headers.get('set-cookie')!, /larder_session=; .*Max-Age=0/);
    const replayed = await (await fetch(`${server.url}/help/`, { headers: { Cookie: cookie } })).text();
    assert.ok(!replayed.includes('Logged in as'), 'a copy of the logged-out cookie is refused');

    const later = cookieOf(await login(server.url, 'alice', 'alice-password'));
    clock.advance(13 * 60 * 60_000);
    const expired = await (await fetch(`${server.url}/help/`, { headers: { Cookie: later } })).text();
    assert.ok(!expired.includes('Logged in as'));
    const tampered = await (await fetch(`${server.url}/help/`, { headers: { Cookie: `${later}x` } })).text();
    assert.ok(!tampered.includes('Logged in as'));
  });

  test('a logout outlives a restart; a session still logged in does too', async () => {
    const restartable = await startLarder({}, undefined, { clock });
    let again: TestLarder | undefined;
    try {
      await restartable.addUser('carol', 'carol-password');
      const loggedOut = cookieOf(await login(restartable.url, 'carol', 'carol-password'));
      const stillIn = cookieOf(await login(restartable.url, 'carol', 'carol-password'));
      const page = await (await fetch(`${restartable.url}/help/`, { headers: { Cookie: loggedOut } })).text();
      const out = await postForm(`${restartable.url}/account/logout/`, loggedOut, page);
      assert.equal(out.status, 303);
      await restartable.stop();
      again = await startLarder({}, restartable.data, { clock });
      const replayed = await (await fetch(`${again.url}/help/`, { headers: { Cookie: loggedOut } })).text();
      assert.ok(!replayed.includes('Logged in as'), 'the logged-out cookie is refused after the restart');
      const kept = await (await fetch(`${again.url}/help/`, { headers: { Cookie: stillIn } })).text();
      assert.ok(kept.includes('Logged in as <strong>carol</strong>'), 'the other session of the same user goes on');
    } finally {
      await again?.stop();
      await restartable.close();
    }
  });
});

describe('web login limits', () => {
  let server: TestLarder;

  before(async () => {
    server = await startLarder({ loginFailureLimit: 2 });
    await server.addUser('alice', 'alice-password');
  });
  after(() => server.close());

  test('too many failed logins: the form says so with 429 and Retry-After, even for the right password', async () => {
    for (let i = 0; i < 2; i++) assert.equal((await login(server.url, 'alice', 'wrong')).status, 403);
    const res = await login(server.url, 'alice', 'alice-password');
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    assert.equal(res.headers.get('set-cookie'), null);
    assert.match(await res.text(), /<p class="notice" role="alert">[^<]*[Tt]oo many/);
    // The form's 429 is counted as the API's is: as a login refusal, and as a refusal by its error code.
    await eventually(async () => {
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      return (
        metrics.includes('\nlarder_login_refusals_total{reason="rate_limited"} 1\n') &&
        metrics.includes('\nlarder_http_refusals_total{status="429",code="too_many_failed_logins"} 1\n')
      );
    }, 'the refused login form counted in /metrics');
  });
});

describe('web pages with LARDER_READ_AUTH=true', () => {
  let server: TestLarder;

  before(async () => {
    server = await startLarder({ readAuth: true });
    await server.addUser('alice', 'alice-password');
  });
  after(() => server.close());

  test('every page sends nobody to the login form; a session or HTTP Basic opens them', async () => {
    for (const path of ['/', '/search/?q=a', '/help/', '/project/acme-widgets/']) {
      const res = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      assert.equal(res.status, 303, path);
      assert.equal(res.headers.get('location'), `/account/login/?next=${encodeURIComponent(path)}`);
    }
    assert.equal((await fetch(`${server.url}/account/login/`)).status, 200);
    assert.equal((await fetch(`${server.url}/static/larder.css`)).status, 200);
    assert.equal((await fetch(`${server.url}/simple/`)).status, 401, 'the index API keeps its 401');
    const res = await login(server.url, 'alice', 'alice-password');
    assert.equal((await fetch(`${server.url}/`, { headers: { Cookie: cookieOf(res) } })).status, 200);
    assert.equal((await fetch(`${server.url}/`, { headers: { Authorization: basicAuth('alice', 'alice-password') } })).status, 200);
  });
});
