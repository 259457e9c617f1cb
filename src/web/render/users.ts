/** `/admin/users/`: every user with their role, tokens and projects; forms to add, promote, demote and remove users. */
import { MIN_PASSWORD_LENGTH, USER_NAME_MAX } from '../../auth/user-rules.js';
import type { UserRecord } from '../../store/records.js';
import { esc, page, timeElement, type Viewer } from './layout.js';

export interface UserRow {
  user: UserRecord;
  tokens: number;
  /** Projects the user owns or maintains. */
  projects: number;
}

export interface UsersView {
  /** The administrator looking (who may not demote or remove themselves here). */
  me: string;
  rows: UserRow[];
  notice: string | null;
  /** A refusal, shown beside the add form or at the top (for the actions in the table). */
  problem: { where: 'add' | 'top'; message: string } | null;
  /** The add form's fields after a refusal. */
  draft: { name: string; admin: boolean };
}

const csrfInput = (viewer: Viewer) => `<input type="hidden" name="csrf" value="${esc(viewer.formToken ?? '')}">`;
const userPath = (name: string, action: string) => `/admin/users/${encodeURIComponent(name)}/${action}`;

function actions(row: UserRow, view: UsersView, viewer: Viewer): string {
  const { name, admin } = row.user;
  if (name === view.me) return '<span class="muted">you</span>';
  const role = `<form method="post" action="${esc(userPath(name, 'admin'))}" class="inline">${csrfInput(viewer)}<input type="hidden" name="admin" value="${admin ? 'false' : 'true'}"><button type="submit" class="secondary">${admin ? `Unmake ${esc(name)} admin` : `Make ${esc(name)} admin`}</button></form>`;
  const remove = `<details class="confirm"><summary>Remove…</summary>
<p>Removing <strong>${esc(name)}</strong> also removes their ${row.tokens} token(s) and their roles in ${row.projects} project(s); their releases stay.</p>
<form method="post" action="${esc(userPath(name, 'remove'))}">${csrfInput(viewer)}<button type="submit">Remove ${esc(name)}</button></form></details>`;
  return `${role} ${remove}`;
}

function userTable(view: UsersView, viewer: Viewer): string {
  const rows = view.rows.map(
    (row) =>
      `<tr><td><strong>${esc(row.user.name)}</strong></td><td data-label="Role">${row.user.admin ? 'administrator' : 'user'}</td><td data-label="Created">${timeElement(row.user.createdAt)}</td><td data-label="Tokens">${row.tokens}</td><td data-label="Projects">${row.projects}</td><td>${actions(row, view, viewer)}</td></tr>`,
  );
  return `<div class="table-wrap"><table class="users stack">
<caption class="visually-hidden">Users</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Created</th><th scope="col">Tokens</th><th scope="col">Projects</th><th scope="col">Actions</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>`;
}

function addForm(view: UsersView, viewer: Viewer): string {
  return `<form method="post" action="/admin/users/" class="stack">${csrfInput(viewer)}
<label for="new-user">User name</label>
<input id="new-user" name="name" required maxlength="${USER_NAME_MAX}" pattern="[A-Za-z0-9][A-Za-z0-9._\\-]*" autocomplete="off" value="${esc(view.draft.name)}">
<label for="new-user-password">Password (at least ${MIN_PASSWORD_LENGTH} characters)</label>
<input id="new-user-password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required>
<label for="new-user-again">Password again</label>
<input id="new-user-again" name="again" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required>
<div class="choices"><label for="new-user-admin"><input type="checkbox" id="new-user-admin" name="admin" value="true"${view.draft.admin ? ' checked' : ''}> Administrator</label></div>
<button type="submit">Add user</button>
</form>`;
}

export function renderUsers(view: UsersView, viewer: Viewer): string {
  const notice = view.notice ? `<p class="notice ok" role="status">${esc(view.notice)}</p>` : '';
  const alert = (where: 'add' | 'top') => (view.problem?.where === where ? `<p class="notice" role="alert">${esc(view.problem.message)}</p>` : '');
  const main = `${notice}${alert('top')}<h1>Users</h1>
<p class="muted">Administrators may manage users, allow names and act on every project. The same as <code>larder user add|list|remove</code>.</p>
${userTable(view, viewer)}
<section aria-labelledby="add-user-h" class="panel">
<h2 id="add-user-h">Add a user</h2>
${alert('add')}
${addForm(view, viewer)}
</section>`;
  return page({ title: 'Users', viewer, path: '/admin/users/' }, main);
}
