/** `/project/<name>/` and `/project/<name>/<version>/`: a release with its files, the versions, and owner controls. */
import { formatBytes } from '../../base/units.js';
import { fileUrl } from '../../render/urls.js';
import type { ProjectStatus, Release, ReleaseFile } from '../../model/documents.js';
import type { HeldRelease } from '../../policy/policy-source.js';
import { copyBlock, esc, page, timeElement, type Viewer } from './layout.js';
import { heldSection } from './policy-holds.js';
import type { PublisherStamp } from '../../store/records.js';

export interface ProjectView {
  name: string;
  displayName: string;
  origin: 'private' | 'upstream' | 'merged';
  /** Every release, newest first. */
  releases: Release[];
  release: Release;
  /** The release `/project/<name>/` shows. */
  latest: boolean;
  /** Sanitized HTML of the long description ('' for none). */
  descriptionHtml: string;
  installLine: string;
  /** The viewer may yank and unyank (owners and administrators of private projects). */
  canManage: boolean;
  /** A one-line result of the last action ("Release 1.0 yanked."). */
  notice: string | null;
  /** Upstream releases the supply-chain policy holds back, newest first. */
  held: readonly HeldRelease[];
  /** The trusted publishers that uploaded files of this release (each once), for private releases. */
  publishers?: readonly PublisherStamp[];
  /** PEP 792 status (absent: active). */
  status?: ProjectStatus;
}

const STATUS_MEANING: Record<string, string> = {
  archived: 'it takes no new uploads; its files stay installable.',
  quarantined: 'its files are not listed or served.',
  deprecated: 'it is no longer recommended; its files stay installable.',
};

/** The project's PEP 792 status, when it is not plainly active. */
function statusNotice(status: ProjectStatus | undefined): string {
  const name = status?.status ?? 'active';
  if (name === 'active' && !status?.reason) return '';
  const label = `${name[0]!.toUpperCase()}${name.slice(1)}`;
  const meaning = STATUS_MEANING[name] ? ` This project is ${name}: ${STATUS_MEANING[name]}` : '';
  const reason = status?.reason ? ` <span class="status-reason">${esc(status.reason)}</span>` : '';
  return `<p class="notice project-status" role="note" data-project-status="${esc(name)}"><strong>${esc(label)}.</strong>${esc(meaning)}${reason}</p>`;
}

const projectPath = (name: string, version?: string) =>
  `/project/${encodeURIComponent(name)}/${version === undefined ? '' : `${encodeURIComponent(version)}/`}`;

function safeUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

function links(view: ProjectView): string {
  const meta = view.release.metadata;
  const entries: [string, string][] = Object.entries(meta.project_urls ?? {});
  if (meta.home_page) entries.unshift(['Homepage', meta.home_page]);
  const items = entries
    .map(([label, url]) => [label, safeUrl(url)] as const)
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([label, url]) => `<li><a href="${esc(url)}" rel="nofollow noopener noreferrer">${esc(label)}</a></li>`);
  return items.length ? `<h2 id="links-h">Project links</h2>\n<ul class="plain" aria-labelledby="links-h">${items.join('')}</ul>` : '';
}

/** Versions a project page lists, newest first; the others are counted, and the JSON API lists them all. */
export const MAX_LISTED_VERSIONS = 5000;

function versionList(view: ProjectView): string {
  const listed = view.releases.slice(0, MAX_LISTED_VERSIONS);
  const unlisted = view.releases.length - listed.length;
  const items = listed.map((r) => {
    const current = r.version === view.release.version ? ' aria-current="page"' : '';
    const yanked = r.yanked ? ` <span class="badge yanked">yanked</span>` : '';
    const when = r.files[0]?.uploadTime ? ` <span class="muted">${timeElement(r.files[0].uploadTime)}</span>` : '';
    return `<li><a href="${esc(projectPath(view.name, r.version))}"${current}>${esc(r.version)}</a>${yanked}${when}</li>`;
  });
  const more =
    unlisted > 0
      ? `\n<p class="muted">and ${unlisted.toLocaleString('en')} more, all listed in <a href="${esc(`/pypi/${encodeURIComponent(view.name)}/json`)}">the JSON API</a></p>`
      : '';
  return `<h2 id="versions-h">Versions</h2>\n<ul class="plain versions" aria-labelledby="versions-h">\n${items.join('\n')}\n</ul>${more}`;
}

function fileRow(project: string, file: ReleaseFile): string {
  const sha = file.hashes.sha256 ?? '';
  return `<tr><td class="file" data-label="File"><a href="${esc(fileUrl('', project, file.filename))}">${esc(file.filename)}</a></td><td data-label="Type">${
    file.packagetype === 'sdist' ? 'source' : 'wheel'
  }</td><td data-label="Size">${file.size === null ? '' : esc(formatBytes(file.size))}</td><td data-label="Uploaded">${timeElement(
    file.uploadTime,
  )}</td><td class="hash" data-label="SHA256">${esc(sha)}</td></tr>`;
}

function fileTable(view: ProjectView): string {
  const files = view.release.files;
  if (files.length === 0) return '<p>This release has no files.</p>';
  return `<div class="table-wrap"><table class="files">
<caption class="visually-hidden">Files of ${esc(view.displayName)} ${esc(view.release.version)}</caption>
<colgroup><col class="c-file"><col class="c-type"><col class="c-size"><col class="c-time"><col class="c-hash"></colgroup>
<thead><tr><th scope="col">File</th><th scope="col">Type</th><th scope="col">Size</th><th scope="col">Uploaded</th><th scope="col">SHA256</th></tr></thead>
<tbody>
${files.map((file) => fileRow(view.name, file)).join('\n')}
</tbody>
</table></div>`;
}

/** Each trusted publisher: its issuer and the identifying claims of the token it uploaded with. */
function publishedBy(publishers: readonly PublisherStamp[]): string {
  const items = publishers.map((p) => {
    const claims = ['repository', 'workflow_ref', 'project_path', 'ref', 'environment']
      .filter((name) => p.claims[name] !== undefined)
      .map((name) => `<li><code>${esc(name)}=${esc(p.claims[name]!)}</code></li>`)
      .join('');
    return `<li>trusted publisher <code>${esc(p.issuer)}</code><ul class="plain">${claims}</ul></li>`;
  });
  return `<ul class="plain publishers">${items.join('')}</ul>`;
}

function ownerControls(view: ProjectView, formToken: string | null): string {
  if (!view.canManage || !formToken) return '';
  const action = `${projectPath(view.name, view.release.version)}${view.release.yanked ? 'unyank' : 'yank'}`;
  const token = `<input type="hidden" name="csrf" value="${esc(formToken)}">`;
  const form = view.release.yanked
    ? `<form method="post" action="${esc(action)}">${token}<button type="submit">Unyank ${esc(view.release.version)}</button></form>`
    : `<form method="post" action="${esc(action)}" class="stack">${token}<label for="yank-reason">Reason (shown to pip users)</label><input id="yank-reason" name="reason" maxlength="500"><button type="submit">Yank ${esc(view.release.version)}</button></form>`;
  return `<section class="owner" aria-labelledby="owner-h"><h2 id="owner-h">Manage this release</h2>
<p class="muted">A yanked release stays installable by an exact pin (<code>==${esc(view.release.version)}</code>) but is no longer chosen otherwise.</p>
${form}
<p><a href="/manage/project/${esc(encodeURIComponent(view.name))}/settings/publishing/">Trusted publishers</a> (CI uploads without a stored token)</p></section>`;
}

export function renderProject(view: ProjectView, viewer: Viewer): string {
  const { release } = view;
  const meta = release.metadata;
  const path = view.latest ? projectPath(view.name) : projectPath(view.name, release.version);
  const yanked = release.yanked ? `<p class="notice" role="note"><strong>Yanked:</strong> ${esc(release.yankedReason || 'no reason given')}</p>` : '';
  const notice = view.notice ? `<p class="notice ok" role="status">${esc(view.notice)}</p>` : '';
  const older =
    !view.latest && view.releases[0] && view.releases[0] !== release
      ? `<p class="muted">Not the latest release: see <a href="${esc(projectPath(view.name))}">the latest</a>.</p>`
      : '';
  const requiresPython = meta.requires_python ?? release.files.find((f) => f.requiresPython)?.requiresPython ?? null;
  const facts = [
    ['Version', `${esc(release.version)}${release.yanked ? ' <span class="badge yanked">yanked</span>' : ''}`],
    [
      'Source',
      view.origin === 'private'
        ? '<span class="badge private">private</span> uploaded to this index'
        : view.origin === 'merged'
          ? 'private and upstream files'
          : 'upstream (cached by this index)',
    ],
    ...(view.status?.status && view.status.status !== 'active' ? [['Status', `<span class="badge status">${esc(view.status.status)}</span>`]] : []),
    ['Requires Python', requiresPython ? `<code>${esc(requiresPython)}</code>` : '<span class="muted">any</span>'],
    ...(meta.license_expression || meta.license ? [['License', esc((meta.license_expression || meta.license)!.split('\n')[0]!.slice(0, 200))]] : []),
    ...(meta.author ? [['Author', esc(meta.author)]] : []),
    ...(view.publishers?.length ? [['Published by', publishedBy(view.publishers)]] : []),
  ]
    .map(([dt, dd]) => `<dt>${dt}</dt><dd>${dd}</dd>`)
    .join('');
  const main = `${notice}<h1>${esc(view.displayName)} ${esc(release.version)}</h1>
${meta.summary ? `<p class="summary">${esc(meta.summary)}</p>` : ''}
${statusNotice(view.status)}${yanked}${older}
${copyBlock('pip install line', view.installLine)}
<div class="layout">
<div>
<section class="panel" aria-label="Release facts"><dl class="facts">${facts}</dl></section>
${ownerControls(view, viewer.formToken)}
<section aria-labelledby="files-h"><h2 id="files-h">Files</h2>
${fileTable(view)}</section>
${heldSection(view.name, view.held)}
${view.descriptionHtml ? `<section class="description" aria-labelledby="desc-h"><h2 id="desc-h">Description</h2>\n${view.descriptionHtml}\n</section>` : ''}
</div>
<aside aria-label="Project navigation">
${links(view)}
${versionList(view)}
</aside>
</div>`;
  return page({ title: `${view.displayName} ${release.version}`, viewer, path }, main);
}

/** The page for a project without releases or a name nobody knows. */
export function renderMissingProject(name: string, viewer: Viewer): string {
  return page(
    { title: 'Not found', viewer, path: projectPath(name) },
    `<h1>Not found</h1>\n<p>No project named <strong>${esc(name)}</strong> is in this index or its upstream. <a href="/search/?q=${esc(encodeURIComponent(name))}">Search for it</a>.</p>`,
  );
}
