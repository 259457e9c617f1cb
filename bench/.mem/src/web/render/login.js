/** `/account/login/`: the login form. */
import { esc, page } from './layout.js';
export function renderLogin(next, error, viewer, readAuth) {
    const alert = error ? `<p class="notice" role="alert">${esc(error)}</p>` : '';
    const why = readAuth ? '<p>This index needs a login to be read.</p>' : '<p>Owners log in to yank and unyank releases.</p>';
    const main = `<h1>Log in</h1>
${why}${alert}
<form method="post" action="/account/login/" class="stack">
<input type="hidden" name="next" value="${esc(next)}">
<label for="username">User name</label>
<input id="username" name="username" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>`;
    return page({ title: 'Log in', viewer, path: '/account/login/' }, main);
}
