/** `/manage/project/<name>/settings/publishing/`: a project's trusted publishers, with the owners' add and remove forms. */
import type { PublisherRecord } from '../../store/publisher-store.js';
import { esc, page, type Viewer } from './layout.js';

export interface PublishersView {
  name: string;
  displayName: string;
  publishers: readonly PublisherRecord[];
  /** LARDER_OIDC_ISSUERS, offered in the issuer field. */
  issuers: readonly string[];
  notice: string | null;
  problem: string | null;
  draft: { issuer: string; claims: string };
}

export const publishersPath = (name: string) => `/manage/project/${encodeURIComponent(name)}/settings/publishing/`;

const csrfInput = (viewer: Viewer) => `<input type="hidden" name="csrf" value="${esc(viewer.formToken ?? '')}">`;

function publisherRow(view: PublishersView, p: PublisherRecord, viewer: Viewer): string {
  const claims = Object.entries(p.claims)
    .map(([key, value]) => `<li><code>${esc(key)}=${esc(value)}</code></li>`)
    .join('');
  const remove = `<form method="post" action="${esc(`${publishersPath(view.name)}${encodeURIComponent(p.id)}/remove`)}" class="inline">${csrfInput(viewer)}<button type="submit" class="secondary" aria-label="Remove publisher ${esc(p.id)}">Remove</button></form>`;
  return `<tr><td data-label="Id"><code>${esc(p.id)}</code></td><td data-label="Issuer"><code>${esc(p.issuer)}</code>${p.jwks ? ' <span class="muted">(pinned keys)</span>' : ''}</td><td data-label="Claims"><ul class="plain">${claims}</ul></td><td>${remove}</td></tr>`;
}

export function renderPublishers(view: PublishersView, viewer: Viewer): string {
  const notice = view.notice ? `<p class="notice ok" role="status">${esc(view.notice)}</p>` : '';
  const problem = view.problem ? `<p class="notice" role="alert">${esc(view.problem)}</p>` : '';
  const table = view.publishers.length
    ? `<div class="table-wrap"><table><thead><tr><th scope="col">Id</th><th scope="col">Issuer</th><th scope="col">Claims</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${view.publishers.map((p) => publisherRow(view, p, viewer)).join('\n')}</tbody></table></div>`
    : '<p>No trusted publishers: CI jobs need an API token to upload.</p>';
  const options = view.issuers.map((issuer) => `<option value="${esc(issuer)}"></option>`).join('');
  const main = `${notice}<h1>Trusted publishers of ${esc(view.displayName)}</h1>
<p>A CI job whose OIDC token carries every claim of a publisher, from its issuer, exchanges it at <code>/_/oidc/mint-token</code> for an upload token of a few minutes (README, "Trusted publishing").</p>
${table}
<section aria-labelledby="add-h"><h2 id="add-h">Add a publisher</h2>
${problem}<form method="post" action="${esc(publishersPath(view.name))}" class="stack">${csrfInput(viewer)}
<label for="publisher-issuer">Issuer URL</label>
<input id="publisher-issuer" name="issuer" required list="publisher-issuers" value="${esc(view.draft.issuer)}" placeholder="https://token.actions.githubusercontent.com">
<datalist id="publisher-issuers">${options}</datalist>
<label for="publisher-claims">Claims, one KEY=VALUE a line</label>
<textarea id="publisher-claims" name="claims" rows="4" required placeholder="repository=acme/widgets&#10;workflow_ref=acme/widgets/.github/workflows/release.yml@refs/heads/main">${esc(view.draft.claims)}</textarea>
<button type="submit">Add publisher</button>
</form></section>
<p><a href="/project/${esc(encodeURIComponent(view.name))}/">Back to ${esc(view.displayName)}</a></p>`;
  return page({ title: `Trusted publishers of ${view.displayName}`, viewer, path: publishersPath(view.name) }, main);
}
