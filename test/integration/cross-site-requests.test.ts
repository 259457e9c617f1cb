/**
 * Cross-site requests over raw HTTP: a POST or DELETE that a browser marks as coming from another site
 * (`Sec-Fetch-Site: cross-site`, a foreign or `null` Origin) is refused with 403 and changes nothing, on
 * /legacy/, /api/ and the web forms, whatever credentials it carries; one from larder's own origin, or
 * with neither header (twine, pip, curl), goes through. /api/ reads JSON bodies only (415 otherwise).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { buildWheel } from '../fixtures/dists.js';
import { addAliceWithRelease, ALICE_AUTH as ALICE } from '../helpers/alice-release.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';
import { uploadForm } from '../helpers/upload-form.js';
import { cookieOf, formToken, postLogin } from '../helpers/web-forms.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

type RequestBody = NonNullable<RequestInit['body']>;

const EVIL = 'https://evil.example';
const REFUSED = /^Cross-site request refused: .+; send it from larder's own pages, or from a client that is not a browser\.$/;

async function assertRefused(res: Response, what: string, why: RegExp): Promise<void> {
  const body = (await res.text()).trimEnd();
  assert.equal(res.status, 403, `${what}: ${res.status} ${body}`);
  assert.match(body, REFUSED, what);
  assert.match(body, why, what);
  assert.ok(!body.includes('\n'), `${what}: one line`);
}

describe('cross-site requests (read auth on)', () => {
  let server: TestLarder;
  const dir = suiteTempDir('larder-xsite-');
  let version = 0;

  const yanked = async (v: string): Promise<boolean> => {
    const res = await fetch(`${server.url}/pypi/acme-xsite/${v}/json`, { headers: { Authorization: ALICE } });
    assert.equal(res.status, 200);
    return ((await res.json()) as { info: { yanked: boolean } }).info.yanked;
  };
  const releases = async (): Promise<string[]> => {
    const res = await fetch(`${server.url}/pypi/acme-xsite/json`, { headers: { Authorization: ALICE } });
    return Object.keys(((await res.json()) as { releases: Record<string, unknown> }).releases).sort();
  };
  const yank = (headers: Record<string, string>, body?: RequestBody) =>
    fetch(`${server.url}/api/projects/acme-xsite/releases/1.0/yank`, { method: 'POST', headers: { Authorization: ALICE, ...headers }, body });
  const unyank = () => fetch(`${server.url}/api/projects/acme-xsite/releases/1.0/unyank`, { method: 'POST', headers: { Authorization: ALICE } });
  /** A new version for the next upload, and the POST to /legacy/ with these headers. */
  const upload = async (headers: Record<string, string>) => {
    const wheel = await buildWheel(dir, { name: 'acme-xsite', version: `2.${version++}` });
    const res = await fetch(`${server.url}/legacy/`, { method: 'POST', headers: { Authorization: ALICE, ...headers }, body: await uploadForm(wheel) });
    return { res, version: wheel.version };
  };

  before(async () => {
    server = await startLarder({ readAuth: true });
    await addAliceWithRelease(server, dir, { name: 'acme-xsite', version: '1.0' });
  });
  after(async () => {
    await server.close();
  });

  test('Sec-Fetch-Site: cross-site is refused on /api and /legacy/, with valid Basic credentials, and changes nothing', async () => {
    const serial = await server.larder.meta.lastSerial();
    const cross = { 'Sec-Fetch-Site': 'cross-site' };
    // The attack's own shape (a form-encoded body) and a JSON one: both are refused before anything else.
    await assertRefused(await yank(cross, new URLSearchParams({ reason: 'forged' })), 'form yank', /Sec-Fetch-Site: cross-site/);
    await assertRefused(await yank({ ...cross, 'Content-Type': 'application/json' }, '{"reason":"forged"}'), 'JSON yank', /Sec-Fetch-Site: cross-site/);
    // Even with an Origin that is larder's own: the browser's own verdict wins.
    await assertRefused(await yank({ ...cross, Origin: new URL(server.url).origin }), 'cross-site with own Origin', /cross-site/);
    const { res, version: refusedVersion } = await upload(cross);
    await assertRefused(res, 'upload', /Sec-Fetch-Site: cross-site/);
    const removal = await fetch(`${server.url}/api/projects/acme-xsite`, { method: 'DELETE', headers: { Authorization: ALICE, ...cross } });
    await assertRefused(removal, 'DELETE', /cross-site/);
    assert.equal(await yanked('1.0'), false);
    assert.ok(!(await releases()).includes(refusedVersion), 'no upload happened');
    assert.deepEqual(await releases(), ['1.0']);
    assert.equal(await server.larder.meta.lastSerial(), serial, 'nothing was written');
  });

  test("an Origin that is not larder's own is refused, as is Origin: null and a same-site page of another origin", async () => {
    const serial = await server.larder.meta.lastSerial();
    await assertRefused(await yank({ Origin: EVIL }), 'foreign Origin', /comes from a page of https:\/\/evil\.example, not of larder/);
    await assertRefused(await yank({ Origin: 'null' }), 'Origin: null', /Origin: null/);
    // A sibling subdomain is the same site but not the same origin.
    await assertRefused(await yank({ Origin: 'http://other.127.0.0.1.example', 'Sec-Fetch-Site': 'same-site' }), 'same-site Origin', /not of larder/);
    await assertRefused(await yank({ 'Sec-Fetch-Site': 'same-site' }), 'same-site without Origin', /Sec-Fetch-Site: same-site/);
    // Same host, other port or scheme: another origin.
    const own = new URL(server.url);
    await assertRefused(await yank({ Origin: `http://${own.hostname}:1` }), 'other port', /not of larder/);
    await assertRefused(await yank({ Origin: `https://${own.host}` }), 'other scheme', /not of larder/);
    const { res } = await upload({ Origin: EVIL });
    await assertRefused(res, 'upload with foreign Origin', /evil\.example/);
    // A long Origin is repeated only in part.
    const long = await yank({ Origin: `https://${'a'.repeat(5000)}.example` });
    assert.equal(long.status, 403);
    assert.ok((await long.text()).length < 400);
    assert.equal(await yanked('1.0'), false);
    assert.deepEqual(await releases(), ['1.0']);
    assert.equal(await server.larder.meta.lastSerial(), serial);
  });

  test("a browser's same-origin request goes through (Origin equal to larder's own)", async () => {
    const own = { Origin: new URL(server.url).origin, 'Sec-Fetch-Site': 'same-origin' };
    const res = await yank({ ...own, 'Content-Type': 'application/json' }, '{"reason":"same origin"}');
    assert.equal(res.status, 200, await res.text());
    assert.equal(await yanked('1.0'), true);
    assert.equal((await unyank()).status, 200);
    const uploaded = await upload(own);
    assert.equal(uploaded.res.status, 200, await uploaded.res.text());
    assert.ok((await releases()).includes(uploaded.version));
  });

  test('a request with neither header (twine, pip, curl) goes through, and reads are never refused', async () => {
    const res = await yank({});
    assert.equal(res.status, 200, await res.text());
    assert.equal(await yanked('1.0'), true);
    assert.equal((await unyank()).status, 200);
    const uploaded = await upload({});
    assert.equal(uploaded.res.status, 200, await uploaded.res.text());
    // A link from another site to a page is a GET: answered as ever.
    const page = await fetch(`${server.url}/simple/acme-xsite/`, { headers: { Authorization: ALICE, 'Sec-Fetch-Site': 'cross-site', Origin: EVIL } });
    assert.equal(page.status, 200);
  });

  test('a web form posted cross-site with a valid session and form token is refused too', async () => {
    const login = await postLogin(server.url, 'alice', 'alice-password');
    assert.equal(login.status, 303);
    const cookie = cookieOf(login);
    const page = await fetch(`${server.url}/project/acme-xsite/1.0/`, { headers: { Cookie: cookie } });
    const csrf = formToken(await page.text());
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/project/acme-xsite/1.0/yank`, {
        method: 'POST',
        headers: { Cookie: cookie, ...headers },
        body: new URLSearchParams({ csrf, reason: 'forged' }),
        redirect: 'manual',
      });
    await assertRefused(await post({ 'Sec-Fetch-Site': 'cross-site', Origin: EVIL }), 'web yank', /cross-site/);
    await assertRefused(await post({ Origin: EVIL }), 'web yank, Origin', /evil/);
    assert.equal(await yanked('1.0'), false);
    // The same form from larder's own page goes through, and the form token is still checked.
    const own = { 'Sec-Fetch-Site': 'same-origin', Origin: new URL(server.url).origin };
    assert.equal((await post(own)).status, 303);
    assert.equal(await yanked('1.0'), true);
    assert.equal((await unyank()).status, 200);
  });
});

describe('the admin API reads JSON only', () => {
  let server: TestLarder;
  const dir = suiteTempDir('larder-json-only-');

  const yanked = async (): Promise<boolean> =>
    ((await (await fetch(`${server.url}/pypi/acme-json/1.0/json`)).json()) as { info: { yanked: boolean; yanked_reason: string | null } }).info.yanked;
  const yankUrl = () => `${server.url}/api/projects/acme-json/releases/1.0/yank`;

  before(async () => {
    server = await startLarder();
    await addAliceWithRelease(server, dir, { name: 'acme-json', version: '1.0' });
  });
  after(async () => {
    await server.close();
  });

  test('form-encoded, multipart and text/plain bodies get 415 and change nothing', async () => {
    const form = new FormData();
    form.append('reason', 'forged');
    const bodies: [string, RequestBody][] = [
      ['application/x-www-form-urlencoded', new URLSearchParams({ reason: 'forged' })],
      ['multipart/form-data', form],
      ['text/plain', 'reason=forged'],
    ];
    for (const [type, body] of bodies) {
      const res = await fetch(yankUrl(), { method: 'POST', headers: { Authorization: ALICE }, body });
      const text = (await res.text()).trimEnd();
      assert.equal(res.status, 415, `${type}: ${text}`);
      assert.match(
        text,
        new RegExp(
          `^The admin API reads JSON only, and this request has Content-Type ${type.replace('/', '\\/')}.*: send Content-Type: application/json, or no body\\.$`,
        ),
      );
    }
    // A body with no Content-Type at all (fetch always names one; undici's request does not).
    const bare = await request(yankUrl(), { method: 'POST', headers: { authorization: ALICE }, body: '{"reason":"x"}' });
    assert.equal(bare.statusCode, 415);
    assert.match(await bare.body.text(), /a body without a Content-Type/);
    const removal = await fetch(`${server.url}/api/projects/acme-json`, {
      method: 'DELETE',
      headers: { Authorization: ALICE },
      body: new URLSearchParams({ a: 'b' }),
    });
    assert.equal(removal.status, 415);
    assert.equal(await yanked(), false);
  });

  test('JSON (with a charset) and no body at all are read', async () => {
    let res = await fetch(yankUrl(), {
      method: 'POST',
      headers: { Authorization: ALICE, 'Content-Type': 'Application/JSON; charset=utf-8' },
      body: '{"reason":"broken"}',
    });
    assert.equal(res.status, 200, await res.text());
    const doc = (await (await fetch(`${server.url}/pypi/acme-json/1.0/json`)).json()) as { info: { yanked_reason: string } };
    assert.equal(doc.info.yanked_reason, 'broken');
    res = await fetch(`${server.url}/api/projects/acme-json/releases/1.0/unyank`, { method: 'POST', headers: { Authorization: ALICE } });
    assert.equal(res.status, 200, await res.text());
    // A yank without a reason: no body and no Content-Type, as curl -X POST sends it.
    const bare = await request(yankUrl(), { method: 'POST', headers: { authorization: ALICE } });
    assert.equal(bare.statusCode, 200, await bare.body.text());
    assert.equal(await yanked(), true);
  });
});

describe('cross-site requests with LARDER_PUBLIC_URL set', () => {
  let server: TestLarder;

  before(async () => {
    server = await startLarder({ publicUrl: 'https://larder.example/pypi' });
    await server.addUser('alice', 'alice-password');
  });
  after(() => server.close());

  /** An admin call that reaches the route (404: no such project) when the guard lets it through. */
  const remove = (origin: string) => fetch(`${server.url}/api/projects/acme-none`, { method: 'DELETE', headers: { Authorization: ALICE, Origin: origin } });

  test("the public URL's origin is larder's own, and so is the origin the request was sent to", async () => {
    assert.equal((await remove('https://larder.example')).status, 404);
    assert.equal((await remove(new URL(server.url).origin)).status, 404);
    await assertRefused(await remove('http://larder.example'), 'public host over http', /not of larder/);
    await assertRefused(await remove('https://larder.example.evil.example'), 'lookalike', /not of larder/);
    await assertRefused(await remove(EVIL), 'foreign', /evil/);
  });
});
