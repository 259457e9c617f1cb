/** `/account/`: the signed-in user's API tokens (list, revoke, create) and the password change form. */
import type { TokenRecord } from '../../store/records.js';
import { MIN_PASSWORD_LENGTH } from '../../auth/user-rules.js';
import { copyBlock, esc, page, timeElement, type Viewer } from './layout.js';

/** The expiry choices of the form: value (as `parseExpiry` reads it) and label. */
export const EXPIRY_CHOICES: readonly (readonly [string, string])[] = [
  ['30d', '30 days'],
  ['90d', '90 days'],
  ['1y', '1 year'],
  ['never', 'Never'],
];
export const DEFAULT_EXPIRY = '90d';

export interface ScopeChoice {
  /** Normalized name (the value sent). */
  name: string;
  displayName: string;
}

/** What the token form was sent with, to fill it in again after a refusal. */
export interface TokenDraft {
  description: string;
  scope: 'all' | 'projects';
  projects: string[];
  expires: string;
}

export const EMPTY_DRAFT: TokenDraft = { description: '', scope: 'all', projects: [], expires: DEFAULT_EXPIRY };

export interface AccountView {
  user: string;
  admin: boolean;
  tokens: TokenRecord[];
  /** ms since the epoch, to mark expired tokens. */
  now: number;
  /** Projects the user may limit a token to (those they own or maintain). */
  scopes: ScopeChoice[];
  notice: string | null;
  /** A refusal of one of the two forms, shown beside it. */
  problem: { form: 'token' | 'password'; message: string } | null;
  draft: TokenDraft;
}

const csrfInput = (viewer: Viewer) => `<input type="hidden" name="csrf" value="${esc(viewer.formToken ?? '')}">`;

function alertFor(view: AccountView, form: 'token' | 'password'): string {
  return view.problem?.form === form ? `<p class="notice" role="alert">${esc(view.problem.message)}</p>` : '';
}

function scopeText(token: TokenRecord): string {
  return token.projects ? token.projects.map((p) => `<code>${esc(p)}</code>`).join(', ') : 'all your projects';
}

function expiryCell(token: TokenRecord, now: number): string {
  if (!token.expiresAt) return 'never';
  const expired = Date.parse(token.expiresAt) <= now ? ' <span class="badge yanked">expired</span>' : '';
  return `${timeElement(token.expiresAt)}${expired}`;
}

function tokenRow(t: TokenRecord, now: number, viewer: Viewer): string {
  const cells = [
    ['Id', `<code>${esc(t.id)}</code>`],
    ['Description', esc(t.description ?? '')],
    ['Scope', scopeText(t)],
    ['Created', timeElement(t.createdAt)],
    ['Expires', expiryCell(t, now)],
  ].map(([label, html]) => `<td data-label="${label}">${html}</td>`);
  const revoke = `<form method="post" action="/account/tokens/${esc(t.id)}/revoke" class="inline">${csrfInput(viewer)}<button type="submit" class="secondary" aria-label="Revoke token ${esc(t.id)}">Revoke</button></form>`;
  return `<tr>${cells.join('')}<td>${revoke}</td></tr>`;
}

function tokenTable(view: AccountView, viewer: Viewer): string {
  if (view.tokens.length === 0) return '<p>You have no API tokens.</p>';
  return `<div class="table-wrap"><table class="tokens stack">
<caption class="visually-hidden">Your API tokens</caption>
<thead><tr><th scope="col">Id</th><th scope="col">Description</th><th scope="col">Scope</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Revoke</th></tr></thead>
<tbody>
${view.tokens.map((t) => tokenRow(t, view.now, viewer)).join('\n')}
</tbody>
</table></div>`;
}

function scopeFields(view: AccountView): string {
  const { draft } = view;
  const checked = (on: boolean) => (on ? ' checked' : '');
  const projects = view.scopes.length
    ? `<div class="choices nested">${view.scopes
        .map(
          (p, i) =>
            `<label for="scope-p${i}"><input type="checkbox" id="scope-p${i}" name="project" value="${esc(p.name)}"${checked(draft.projects.includes(p.name))}> ${esc(p.displayName)}</label>`,
        )
        .join('\n')}</div>`
    : '<p class="muted nested">You own or maintain no project yet: a token for all your projects can create one by uploading.</p>';
  return `<fieldset><legend>Scope</legend>
<div class="choices">
<label for="scope-all"><input type="radio" id="scope-all" name="scope" value="all"${checked(draft.scope === 'all')}> All your projects (and new ones)</label>
<label for="scope-projects"><input type="radio" id="scope-projects" name="scope" value="projects"${checked(draft.scope === 'projects')}${view.scopes.length ? '' : ' disabled'}> Only these projects:</label>
</div>
${projects}
</fieldset>`;
}

function tokenForm(view: AccountView, viewer: Viewer): string {
  const options = EXPIRY_CHOICES.map(([value, label]) => `<option value="${value}"${value === view.draft.expires ? ' selected' : ''}>${label}</option>`).join(
    '',
  );
  return `<form method="post" action="/account/tokens/" class="stack">${csrfInput(viewer)}
<label for="token-description">Description (what the token is for)</label>
<input id="token-description" name="description" maxlength="100" required value="${esc(view.draft.description)}" placeholder="CI uploads of acme-widgets">
${scopeFields(view)}
<label for="token-expires">Expires after</label>
<select id="token-expires" name="expires">${options}</select>
<button type="submit">Create token</button>
</form>`;
}

function passwordForm(viewer: Viewer): string {
  return `<form method="post" action="/account/password/" class="stack">${csrfInput(viewer)}
<label for="current-password">Current password</label>
<input id="current-password" name="current" type="password" autocomplete="current-password" required>
<label for="new-password">New password (at least ${MIN_PASSWORD_LENGTH} characters)</label>
<input id="new-password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required>
<label for="new-password-again">New password again</label>
<input id="new-password-again" name="again" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required>
<button type="submit">Change password</button>
</form>`;
}

export function renderAccount(view: AccountView, viewer: Viewer): string {
  const notice = view.notice ? `<p class="notice ok" role="status">${esc(view.notice)}</p>` : '';
  const admin = view.admin ? '<p>You are an administrator: <a href="/admin/users/">manage users</a>.</p>' : '';
  const main = `${notice}<h1>Your account</h1>
<p>Logged in as <strong>${esc(view.user)}</strong>.</p>
${admin}
<section aria-labelledby="tokens-h">
<h2 id="tokens-h">API tokens</h2>
<p class="muted">Upload with user name <code>__token__</code> and a token as the password. A token is shown once, when it is created; larder keeps only its hash, and lists it by its id.</p>
${tokenTable(view, viewer)}
</section>
<section aria-labelledby="new-token-h" class="panel">
<h2 id="new-token-h">Create a token</h2>
${alertFor(view, 'token')}
${tokenForm(view, viewer)}
</section>
<section aria-labelledby="password-h" class="panel">
<h2 id="password-h">Change your password</h2>
<p class="muted">Your other logins (other browsers) end; this one goes on. API tokens keep working: revoke them above if they may have leaked.</p>
${alertFor(view, 'password')}
${passwordForm(viewer)}
</section>`;
  return page({ title: 'Your account', viewer, path: '/account/' }, main);
}

/** Shown once, right after a token is created: the token itself and how to use it. */
export function renderTokenCreated(token: TokenRecord, secret: string, pypirc: string, viewer: Viewer): string {
  const until = token.expiresAt ? `It expires ${timeElement(token.expiresAt)}.` : 'It never expires.';
  const main = `<h1>Token created</h1>
<p class="notice ok" role="status">Copy the token now: this is the only time it is shown. larder keeps only its hash.</p>
<p>Token <code>${esc(token.id)}</code> (${esc(token.description ?? '')}) for ${scopeText(token)}. ${until}</p>
<div class="secret">${copyBlock('API token', secret)}</div>
<h2>Use it</h2>
<p>User name <code>__token__</code>, password: the token. For twine and flit, in <code>~/.pypirc</code>:</p>
${copyBlock('.pypirc', pypirc)}
<p>Then <code>twine upload --repository larder dist/*</code>; with uv, <code>uv publish --token</code> and the token.</p>
<p><a href="/account/">Back to your account</a></p>`;
  return page({ title: 'Token created', viewer, path: '/account/' }, main);
}

/** A page refusing the viewer (403): not an administrator, or signed in with an API token. */
export function renderRefusal(message: string, viewer: Viewer, path: string): string {
  return page({ title: 'Not allowed', viewer, path }, `<h1>Not allowed</h1>\n<p class="notice" role="alert">${esc(message)}</p>`);
}
