/** Larder's web forms over plain HTTP, as a browser sends them: the login form, the session cookie, form tokens. */
import assert from 'node:assert/strict';

/** Posts the login form; the answer is not followed (303 on success, with the session cookie). */
export function postLogin(url: string, user: string, password: string, next = '/'): Promise<Response> {
  return fetch(`${url}/account/login/`, {
    method: 'POST',
    body: new URLSearchParams({ username: user, password, next }),
    redirect: 'manual',
  });
}

/** The `name=value` of the cookie an answer sets, as a browser sends it back. */
export function cookieOf(res: Response): string {
  const set = res.headers.get('set-cookie') ?? '';
  return set.split(';')[0]!;
}

/** The form token (csrf field) of a page's first form. */
export function formToken(html: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  assert.ok(m, 'the page has a form token');
  return m[1]!;
}

/** Submits a form of `page` to `url` as a browser does: its form token, the session cookie; the answer is not followed. */
export function postForm(url: string, cookie: string, page: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { Cookie: cookie }, body: new URLSearchParams({ csrf: formToken(page) }), redirect: 'manual' });
}
