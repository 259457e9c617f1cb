/** `/help/`: every set-up and publishing snippet, and the settings that matter to a user. */
import { formatBytes } from '../../base/units.js';
import { copyBlock, esc, page, type Viewer } from './layout.js';
import { installSnippets, publishSnippets, type Snippet, type SnippetTarget } from './snippets.js';

export interface HelpFacts {
  maxUploadSize: number;
  upstream: string | null;
  offline: boolean;
}

function section(snippets: Snippet[]): string {
  return snippets.map((s) => `<h3 id="${esc(s.id)}">${esc(s.title)}</h3>\n<p class="muted">${esc(s.where)}</p>\n${copyBlock(s.title, s.text)}`).join('\n');
}

export function renderHelp(target: SnippetTarget, facts: HelpFacts, viewer: Viewer): string {
  const main = `<h1>Help</h1>
<nav aria-label="On this page"><ul><li><a href="#settings-h">This server</a></li><li><a href="#install-h">Installing</a></li><li><a href="#publish-h">Publishing</a></li></ul></nav>
<section aria-labelledby="settings-h" class="panel">
<h2 id="settings-h">This server</h2>
<dl class="facts">
<dt>Index URL</dt><dd><code>${esc(target.base)}/simple/</code></dd>
<dt>Upload URL</dt><dd><code>${esc(target.base)}/legacy/</code></dd>
<dt>Reading</dt><dd>${target.readAuth ? 'needs credentials: a user name and password, or user <code>__token__</code> and an API token' : 'open to everyone, no credentials'}</dd>
<dt>Uploading</dt><dd>needs credentials; the first uploader of a new project owns it</dd>
<dt>Largest upload</dt><dd>${esc(formatBytes(facts.maxUploadSize))}</dd>
<dt>Upstream</dt><dd>${facts.upstream ? `<code>${esc(facts.upstream)}</code>${facts.offline ? ' (offline: only what is cached)' : ''}` : 'none'}</dd>
</dl>
<p>Logged-in users create their own API tokens on <a href="/account/">their account page</a> (administrators also with <code>larder token create USER</code>). Over plain <code>http://</code>, pip and pdm need the host trusted, as below; behind HTTPS drop those lines.</p>
</section>
<section aria-labelledby="install-h">
<h2 id="install-h">Installing</h2>
<p>Point your tool at this index as its <em>only</em> index: larder already serves upstream projects, and a private project hides the upstream project of the same name. A second index (<code>--extra-index-url</code>) would let an upstream package replace a private one.</p>
${section(installSnippets(target))}
</section>
<section aria-labelledby="publish-h">
<h2 id="publish-h">Publishing</h2>
<p>Build first (<code>python -m build</code>), then upload <code>dist/*</code>. Re-uploading an identical file is accepted and changes nothing; another file under an existing name is refused.</p>
${section(publishSnippets(target))}
</section>`;
  return page({ title: 'Help', viewer, path: '/help/' }, main);
}
