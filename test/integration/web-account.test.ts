/**
 * The account and user pages over HTTP with a real server: API tokens (create, shown once, used for an
 * upload, expiry on a moved clock, revoke), form tokens, API tokens refused, password change (other
 * sessions end, the old password stops working, failed-login limits), and the administrators' user pages.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildWheel } from '../fixtures/dists.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { uploadForm } from '../helpers/upload-form.js';
import { cookieOf, formToken, postLogin } from '../helpers/web-forms.js';

const DAY = 86_400_000;

/** A browser-like client of one server: logs in, reads pages, posts forms. */
function client(url: string) {
  return {
    async login(user: string, password: string): Promise<string> {
      const res = await postLogin(url, user, password);
      assert.equal(res.status, 303, `${user} logs in`);
      return cookieOf(res);
    },
    get(path: string, headers: Record<string, string> = {}): Promise<Response> {
      return fetch(`${url}${path}`, { headers, redirect: 'manual' });
    },
    async page(path: string, cookie: string): Promise<string> {
      const res = await fetch(`${url}${path}`, { headers: { Cookie: cookie }, redirect: 'manual' });
      assert.equal(res.status, 200, `GET ${path}`);
      return res.text();
    },
    post(path: string, fields: [string, string][], headers: Record<string, string> = {}): Promise<Response> {
      return fetch(`${url}${path}`, { method: 'POST', headers, body: new URLSearchParams(fields), redirect: 'manual' });
    },
  };
}

describe('the account page: API tokens', () => {
  let server: TestLarder;
  let dir: string;
  let web: ReturnType<typeof client>;
  const clock = new ManualClock(Date.UTC(2026, 10, 25, 12, 0, 0));
  let version = 0;

  /** Uploads a new version of `project` with these credentials; the response status. */
  const upload = async (project: string, authorization: string): Promise<Response> => {
    const wheel = await buildWheel(dir, { name: project, version: `1.${version++}` });
    return fetch(`${server.url}/legacy/`, { method: 'POST', headers: { Authorization: authorization }, body: await uploadForm(wheel) });
  };
  const tokenAuth = (token: string) => basicAuth('__token__', token);

  /** Creates a token on the web page; the answer's page. */
  /** Sends the token form with `fields` in query-string form (`description=CI&scope=all`). */
  const createToken = async (cookie: string, fields: string): Promise<Response> => {
    const csrf = formToken(await web.page('/account/', cookie));
    return web.post('/account/tokens/', [['csrf', csrf], ...new URLSearchParams(fields)], { Cookie: cookie });
  };
  const secretOf = (html: string) => {
    const m = /<code>(larder-[A-Za-z0-9_-]{43})<\/code>/.exec(html);
    assert.ok(m, 'the page shows the token');
    return m[1]!;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-web-account-'));
    server = await startLarder({}, undefined, { clock });
    web = client(server.url);
    await server.addUser('alice', 'alice-password');
    await server.addUser('bob', 'bob-password');
    assert.equal((await upload('acme-widgets', basicAuth('alice', 'alice-password'))).status, 200);
    assert.equal((await upload('acme-tools', basicAuth('alice', 'alice-password'))).status, 200);
    assert.equal((await upload('bobs-thing', basicAuth('bob', 'bob-password'))).status, 200);
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('nobody is sent to the login form; the header links a logged-in user to the account page', async () => {
    const res = await web.get('/account/');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/account/login/?next=%2Faccount%2F');
    assert.equal((await web.get('/account')).headers.get('location'), '/account/');
    const cookie = await web.login('alice', 'alice-password');
    const home = await web.page('/', cookie);
    assert.ok(home.includes('<a href="/account/">Account</a>'));
    const account = await web.page('/account/', cookie);
    assert.match(account, /<h1>Your account<\/h1>/);
    assert.match(account, /You have no API tokens/);
    assert.ok(!account.includes('manage users'), 'no admin link for a user');
    // The scope choices are the projects alice owns, not bob's.
    assert.ok(account.includes('value="acme-widgets"') && account.includes('value="acme-tools"'));
    assert.ok(!account.includes('value="bobs-thing"'));
  });

  test('a token is created, shown once, uploads as __token__, is listed without its secret, and is revoked', async () => {
    const cookie = await web.login('alice', 'alice-password');
    const res = await createToken(cookie, 'description=CI uploads&scope=all&expires=90d');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const html = await res.text();
    const token = secretOf(html);
    assert.ok(html.includes(`repository = ${server.url}/legacy/\nusername = __token__\npassword = ${token}`), 'a .pypirc snippet with the token');
    assert.match(html, /only time it is shown/);

    assert.equal((await upload('acme-widgets', tokenAuth(token))).status, 200, 'the token uploads');
    assert.equal((await upload('brand-new-project', tokenAuth(token))).status, 200, 'a token for all projects may create one');

    const [record] = await server.larder.meta.listTokens('alice');
    assert.ok(record);
    assert.equal(record.description, 'CI uploads');
    assert.equal(record.projects, null);
    assert.equal(record.expiresAt, new Date(clock.now() + 90 * DAY).toISOString());
    const listed = await web.page('/account/', cookie);
    assert.ok(listed.includes(`<code>${record.id}</code>`), 'listed by its id');
    assert.ok(listed.includes('CI uploads'));
    assert.ok(!listed.includes(token) && !listed.includes(token.slice(7, 20)), 'the secret is never shown again');
    assert.match(listed, /2027-02-23 12:00 UTC/, 'its expiry');

    const csrf = formToken(listed);
    const others = await web.post(`/account/tokens/${record.id}/revoke`, [['csrf', csrf]], { Cookie: await web.login('bob', 'bob-password') });
    assert.equal(others.status, 403, "bob's form token is not alice's");
    const bobCookie = await web.login('bob', 'bob-password');
    const bobCsrf = formToken(await web.page('/account/', bobCookie));
    const notHis = await web.post(`/account/tokens/${record.id}/revoke`, [['csrf', bobCsrf]], { Cookie: bobCookie });
    assert.equal(notHis.status, 404, "bob cannot revoke alice's token");
    assert.equal((await server.larder.meta.listTokens('alice')).length, 1);

    const revoked = await web.post(`/account/tokens/${record.id}/revoke`, [['csrf', csrf]], { Cookie: cookie });
    assert.equal(revoked.status, 303);
    assert.equal(revoked.headers.get('location'), '/account/?done=revoked');
    assert.match(await web.page('/account/?done=revoked', cookie), /The token was revoked/);
    assert.deepEqual(await server.larder.meta.listTokens('alice'), []);
    assert.equal((await upload('acme-widgets', tokenAuth(token))).status, 403, 'a revoked token is refused');
  });

  test('a token limited to chosen projects uploads only there; projects the user does not own are refused', async () => {
    const cookie = await web.login('alice', 'alice-password');
    const res = await createToken(cookie, 'description=widgets only&scope=projects&project=acme-widgets&expires=never');
    assert.equal(res.status, 200);
    const token = secretOf(await res.text());
    assert.equal((await upload('acme-widgets', tokenAuth(token))).status, 200);
    assert.equal((await upload('acme-tools', tokenAuth(token))).status, 403);
    const record = (await server.larder.meta.listTokens('alice')).find((t) => t.description === 'widgets only')!;
    assert.deepEqual(record.projects, ['acme-widgets']);
    assert.equal(record.expiresAt, undefined, 'never expires');

    const refusals: [string, RegExp | null][] = [
      ['description=sneaky&scope=projects&project=bobs-thing&expires=30d', /You neither own nor maintain bobs-thing/],
      ['description=nothing chosen&scope=projects&expires=30d', /Choose at least one project/],
      ['scope=all&expires=30d', null],
      ['description=x&scope=all&expires=tomorrow-ish', /Expiry: &#39;tomorrow-ish&#39; is not/],
    ];
    for (const [fields, message] of refusals) {
      const refused = await createToken(cookie, fields);
      assert.equal(refused.status, 400, fields);
      if (message) assert.match(await refused.text(), message);
    }
    assert.equal((await server.larder.meta.listTokens('alice')).filter((t) => t.description !== 'widgets only').length, 0, 'nothing refused was created');
  });

  test('an expired token is refused with a message naming it and its expiry (the clock is moved)', async () => {
    const cookie = await web.login('bob', 'bob-password');
    const res = await createToken(cookie, 'description=short-lived&scope=all&expires=30d');
    const token = secretOf(await res.text());
    const { id } = (await server.larder.meta.listTokens('bob')).find((t) => t.description === 'short-lived')!;
    clock.advance(29 * DAY);
    assert.equal((await upload('bobs-thing', tokenAuth(token))).status, 200, 'still good a day before');
    clock.advance(DAY);
    const refused = await upload('bobs-thing', tokenAuth(token));
    assert.equal(refused.status, 403);
    const message = `API token ${id} expired on ${new Date(clock.now()).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    assert.ok(refused.statusText.startsWith(message), refused.statusText);
    assert.ok((await refused.text()).startsWith(message));
    const read = await web.get('/help/', { Authorization: tokenAuth(token) });
    assert.equal(read.status, 403, 'pages asked with it are refused too');
    assert.ok(read.statusText.startsWith(message));
    const page = await web.page('/account/', await web.login('bob', 'bob-password'));
    assert.match(page, /<span class="badge yanked">expired<\/span>/);
  });

  test('every form needs the session form token; an API token cannot manage the account', async () => {
    const cookie = await web.login('alice', 'alice-password');
    const before = (await server.larder.meta.listTokens('alice')).length;
    const noToken = await web.post(
      '/account/tokens/',
      [
        ['description', 'forged'],
        ['scope', 'all'],
        ['expires', '30d'],
      ],
      { Cookie: cookie },
    );
    assert.equal(noToken.status, 403);
    assert.match(await noToken.text(), /not sent from this site(?:'|&#39;)s own page/);
    const csrf = formToken(await web.page('/account/', cookie));
    const noCookie = await web.post('/account/tokens/', [
      ['csrf', csrf],
      ['description', 'forged'],
      ['scope', 'all'],
    ]);
    assert.equal(noCookie.status, 403);
    const passwordForged = await web.post(
      '/account/password/',
      [
        ['current', 'alice-password'],
        ['password', 'mallory-password'],
        ['again', 'mallory-password'],
      ],
      { Cookie: cookie },
    );
    assert.equal(passwordForged.status, 403);
    assert.equal((await server.larder.meta.listTokens('alice')).length, before, 'no token was made');

    // A token (even one for all projects) can read the form token off a project page it may manage, but
    // the account forms still refuse it: a token must not mint tokens or change the password.
    const token = await server.addToken('alice');
    const asToken = { Authorization: tokenAuth(token) };
    const refusedPage = await web.get('/account/', asToken);
    assert.equal(refusedPage.status, 403);
    assert.match(await refusedPage.text(), /API tokens cannot manage an account/);
    const projectPage = await (await web.get('/project/acme-widgets/', asToken)).text();
    const basicCsrf = formToken(projectPage);
    const minted = await web.post(
      '/account/tokens/',
      [
        ['csrf', basicCsrf],
        ['description', 'minted'],
        ['scope', 'all'],
        ['expires', 'never'],
      ],
      asToken,
    );
    assert.equal(minted.status, 403);
    assert.match(await minted.text(), /log in with your user name and password/);
    assert.equal((await server.larder.meta.listTokens('alice')).length, before + 1, 'only the test token exists');

    // HTTP Basic with the password is a login like the cookie: its form token works.
    const basic = { Authorization: basicAuth('alice', 'alice-password') };
    const basicPage = await web.get('/account/', basic);
    assert.equal(basicPage.status, 200);
    const made = await web.post(
      '/account/tokens/',
      [
        ['csrf', formToken(await basicPage.text())],
        ['description', 'via basic'],
        ['scope', 'all'],
        ['expires', '1y'],
      ],
      basic,
    );
    assert.equal(made.status, 200);
  });
});

describe('the account page: changing the password', () => {
  let server: TestLarder;
  let web: ReturnType<typeof client>;
  const clock = new ManualClock(Date.UTC(2026, 10, 25, 12, 0, 0));

  before(async () => {
    server = await startLarder({ loginFailureLimit: 3 }, undefined, { clock });
    web = client(server.url);
    await server.addUser('carol', 'carol-password');
  });
  after(() => server.close());

  const change = (cookie: string, csrf: string, current: string, password: string, again = password) =>
    web.post(
      '/account/password/',
      [
        ['csrf', csrf],
        ['current', current],
        ['password', password],
        ['again', again],
      ],
      { Cookie: cookie },
    );

  test('wrong current password, mismatched or short new ones are refused; a change ends the other sessions', async () => {
    const here = await web.login('carol', 'carol-password');
    const elsewhere = await web.login('carol', 'carol-password');
    const csrf = formToken(await web.page('/account/', here));

    const wrong = await change(here, csrf, 'not-my-password', 'carol-new-password');
    assert.equal(wrong.status, 403);
    assert.match(await wrong.text(), /The current password is wrong/);
    const differ = await change(here, csrf, 'carol-password', 'carol-new-password', 'carol-new-passw0rd');
    assert.equal(differ.status, 400);
    assert.match(await differ.text(), /The two new passwords differ/);
    const short = await change(here, csrf, 'carol-password', 'short');
    assert.equal(short.status, 400);
    assert.match(await short.text(), /at least 8 characters/);
    assert.equal((await web.get('/help/', { Authorization: basicAuth('carol', 'carol-password') })).status, 200, 'nothing changed yet');

    const res = await change(here, csrf, 'carol-password', 'carol-new-password');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/account/?done=password');
    const renewed = cookieOf(res);
    assert.match(renewed, /^larder_session=./, 'this browser gets a fresh session');
    assert.match(await web.page('/account/?done=password', renewed), /Your password was changed/);

    for (const [name, cookie] of [
      ['the other browser', elsewhere],
      ["this browser's old cookie", here],
    ]) {
      const page = await (await web.get('/help/', { Cookie: cookie! })).text();
      assert.ok(!page.includes('Logged in as'), `${name} is logged out`);
    }
    assert.equal((await web.get('/help/', { Authorization: basicAuth('carol', 'carol-password') })).status, 403, 'the old password stops working');
    assert.equal((await web.get('/help/', { Authorization: basicAuth('carol', 'carol-new-password') })).status, 200);
    await web.login('carol', 'carol-new-password');
  });

  test('the current-password check counts as a login: too many failures get 429 with Retry-After', async () => {
    clock.advance(61_000);
    await server.addUser('dave', 'dave-password');
    const cookie = await web.login('dave', 'dave-password');
    const csrf = formToken(await web.page('/account/', cookie));
    for (let i = 0; i < 3; i++) assert.equal((await change(cookie, csrf, `guess-${i}`, 'dave-new-password')).status, 403);
    const limited = await change(cookie, csrf, 'dave-password', 'dave-new-password');
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.match(await limited.text(), /role="alert">Too many failed logins/);
    assert.equal((await web.get('/help/', { Authorization: basicAuth('dave', 'dave-password') })).status, 429, 'unchanged, and still limited');
    clock.advance(61_000);
    assert.equal((await web.get('/help/', { Authorization: basicAuth('dave', 'dave-password') })).status, 200, 'the old password is still the one');
  });
});

describe('the users page', () => {
  let server: TestLarder;
  let web: ReturnType<typeof client>;

  before(async () => {
    server = await startLarder({});
    web = client(server.url);
    await server.addUser('root', 'root-password', true);
    await server.addUser('erin', 'erin-password');
  });
  after(() => server.close());

  const add = (cookie: string, csrf: string, name: string, password: string, admin = false) =>
    web.post(
      '/admin/users/',
      [['csrf', csrf], ['name', name], ['password', password], ['again', password], ...(admin ? [['admin', 'true'] as [string, string]] : [])],
      { Cookie: cookie },
    );
  const setAdmin = (cookie: string, csrf: string, name: string, admin: boolean) =>
    web.post(
      `/admin/users/${name}/admin`,
      [
        ['csrf', csrf],
        ['admin', String(admin)],
      ],
      { Cookie: cookie },
    );

  test('a user who is not an administrator gets 403 on every users page and form', async () => {
    const cookie = await web.login('erin', 'erin-password');
    const page = await web.get('/admin/users/', { Cookie: cookie });
    assert.equal(page.status, 403);
    assert.match(await page.text(), /Only administrators may manage users/);
    const csrf = formToken(await web.page('/account/', cookie));
    const created = await add(cookie, csrf, 'frank', 'frank-password', true);
    assert.equal(created.status, 403);
    assert.equal(await server.larder.meta.getUser('frank'), undefined);
    assert.equal((await setAdmin(cookie, csrf, 'erin', true)).status, 403);
    assert.equal((await server.larder.meta.getUser('erin'))!.admin, false);
    assert.equal((await web.post('/admin/users/root/remove', [['csrf', csrf]], { Cookie: cookie })).status, 403);
    assert.ok(await server.larder.meta.getUser('root'));
    assert.equal((await web.get('/admin/users/')).status, 303, 'nobody is sent to the login form');
  });

  test('an administrator adds a user (name rules of the CLI), makes and unmakes an admin, and removes a user', async () => {
    const cookie = await web.login('root', 'root-password');
    const account = await web.page('/account/', cookie);
    assert.ok(account.includes('<a href="/admin/users/">manage users</a>'));
    const list = await web.page('/admin/users/', cookie);
    assert.match(list, /<td><strong>erin<\/strong><\/td><td data-label="Role">user<\/td>/);
    assert.match(list, /<td><strong>root<\/strong><\/td><td data-label="Role">administrator<\/td>/);
    const csrf = formToken(list);

    const badName = await add(cookie, csrf, 'bad name!', 'frank-password');
    assert.equal(badName.status, 400);
    assert.match(await badName.text(), /invalid user name/);
    assert.equal((await add(cookie, csrf, '__token__', 'frank-password')).status, 400);
    assert.equal((await add(cookie, csrf, 'erin', 'frank-password')).status, 409);
    const short = await add(cookie, csrf, 'frank', 'short');
    assert.equal(short.status, 400);
    assert.match(await short.text(), /at least 8 characters/);
    assert.equal(await server.larder.meta.getUser('frank'), undefined);

    const made = await add(cookie, csrf, 'frank', 'frank-password');
    assert.equal(made.status, 303);
    assert.equal(made.headers.get('location'), '/admin/users/?done=added&user=frank');
    assert.match(await web.page(made.headers.get('location')!, cookie), /User frank was added/);
    assert.equal((await server.larder.meta.getUser('frank'))!.admin, false);
    const frank = await web.login('frank', 'frank-password');
    assert.equal((await web.get('/admin/users/', { Cookie: frank })).status, 403);

    const promote = await setAdmin(cookie, csrf, 'frank', true);
    assert.equal(promote.status, 303);
    assert.equal((await server.larder.meta.getUser('frank'))!.admin, true);
    assert.equal((await web.get('/admin/users/', { Cookie: frank })).status, 200, "frank's session sees the new role at once");
    const demote = await setAdmin(cookie, csrf, 'frank', false);
    assert.equal(demote.status, 303);
    assert.equal((await web.get('/admin/users/', { Cookie: frank })).status, 403);

    const self = await setAdmin(cookie, csrf, 'root', false);
    assert.equal(self.status, 400);
    assert.match(await self.text(), /You cannot change your own role here/);
    assert.equal((await server.larder.meta.getUser('root'))!.admin, true);
    assert.equal((await web.post('/admin/users/root/remove', [['csrf', csrf]], { Cookie: cookie })).status, 400);
    assert.equal((await web.post('/admin/users/nobody/remove', [['csrf', csrf]], { Cookie: cookie })).status, 404);

    await server.addToken('frank');
    const removed = await web.post('/admin/users/frank/remove', [['csrf', csrf]], { Cookie: cookie });
    assert.equal(removed.status, 303);
    assert.equal(await server.larder.meta.getUser('frank'), undefined);
    assert.deepEqual(await server.larder.meta.listTokens('frank'), [], 'their tokens went with them');
    assert.ok(!(await (await web.get('/help/', { Cookie: frank })).text()).includes('Logged in as'), "frank's session ended");
    assert.equal((await web.post('/admin/users/erin/remove', [['admin', 'x']], { Cookie: cookie })).status, 403, 'the form token is needed here too');
    assert.ok(await server.larder.meta.getUser('erin'));
  });
});
