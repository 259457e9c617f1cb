/** `/`: what this index is, the search box, and how to use it. */
import { formatBytes } from '../../base/units.js';
import { copyBlock, esc, page, timeElement, type Viewer } from './layout.js';
import { installSnippets, publishSnippets, type SnippetTarget } from './snippets.js';

export interface IndexSummary {
  privateProjects: number;
  privateFiles: { files: number; bytes: number };
  cachedProjects: number;
  /** The upstream's simple index URL without credentials; null when there is none. */
  upstream: string | null;
  offline: boolean;
  /** The stored upstream project list, when there is one. */
  upstreamList: { fetchedAt: number; count: number } | null;
}

function upstreamState(summary: IndexSummary): string {
  if (!summary.upstream) return '<dd>none: this index serves only its private projects</dd>';
  const mode = summary.offline
    ? '<span class="badge">offline</span> only what is cached is served; the upstream is never asked'
    : '<span class="badge">online</span> projects not cached yet are fetched from it on first use';
  const list = summary.upstreamList
    ? `project list of ${summary.upstreamList.count.toLocaleString('en')} names stored ${timeElement(summary.upstreamList.fetchedAt)}`
    : 'project list not stored yet';
  return `<dd><a href="${esc(summary.upstream)}" rel="nofollow">${esc(summary.upstream)}</a></dd><dt>State</dt><dd>${mode}; ${list}</dd>`;
}

export function renderHome(summary: IndexSummary, target: SnippetTarget, viewer: Viewer): string {
  const pypirc = publishSnippets(target).filter((s) => s.id === 'pypirc');
  const snippets = [...installSnippets(target), ...pypirc]
    .map((s) => `<h3>${esc(s.title)} <span class="muted">(${esc(s.where)})</span></h3>\n${copyBlock(s.title, s.text)}`)
    .join('\n');
  const main = `<h1>larder package index</h1>
<p>A Python package index: private projects uploaded here, and ${summary.upstream ? 'a cache of the upstream index' : 'no upstream'}, served to pip and other installers as one index at <code>${esc(target.base)}/simple/</code>.</p>
<form class="home-search" role="search" method="get" action="/search/">
<label for="home-q">Search projects</label>
<div class="copyable"><input id="home-q" type="search" name="q" placeholder="Project name"><button type="submit">Search</button></div>
</form>
<section aria-labelledby="about-h" class="panel">
<h2 id="about-h">This index</h2>
<dl class="facts">
<dt>Private projects</dt><dd>${summary.privateProjects.toLocaleString('en')} (${summary.privateFiles.files.toLocaleString('en')} ${summary.privateFiles.files === 1 ? 'file' : 'files'}, ${esc(formatBytes(summary.privateFiles.bytes))})</dd>
<dt>Cached upstream projects</dt><dd>${summary.cachedProjects.toLocaleString('en')}</dd>
<dt>Upstream</dt>${upstreamState(summary)}
<dt>Reading</dt><dd>${target.readAuth ? 'needs a user name and password (or token)' : 'open to everyone'}</dd>
</dl>
</section>
<section aria-labelledby="use-h">
<h2 id="use-h">Use this index</h2>
<p>Use it as your only index (<code>--index-url</code>, not <code>--extra-index-url</code>): larder already merges private and upstream projects, and a private project hides the upstream one of the same name. Publishing and the full set-up: <a href="/help/">Help</a>.</p>
${snippets}
</section>`;
  return page({ title: 'Home', viewer, path: '/' }, main);
}
