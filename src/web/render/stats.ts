/** `/stats/` for browsers: private and cached upstream files and bytes, each side on its own, and the largest projects of each. */
import { formatBytes } from '../../base/units.js';
import { largest, type SideInput, type StatsInput } from '../../render/stats.js';
import { esc, page, type Viewer } from './layout.js';

/** Rows per table on the page (the JSON form lists 100). */
const ROWS = 20;

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** `1.6 MB (1,634,208 bytes)`: the exact number stays readable where it matters. */
const bytes = (n: number) => (n < 1000 ? esc(formatBytes(n)) : `${esc(formatBytes(n))} <span class="muted">(${n.toLocaleString('en')} bytes)</span>`);

function summary(side: SideInput): string {
  return `${count(side.projects.length, 'project', 'projects')}, ${count(side.files, 'file', 'files')}, ${bytes(side.bytes)}`;
}

function table(id: string, title: string, side: SideInput, empty: string): string {
  const heading = `<h2 id="${id}">${esc(title)}</h2>`;
  if (!side.projects.length) return `<section aria-labelledby="${id}">${heading}\n<p>${esc(empty)}</p></section>`;
  const rows = largest(side.projects, ROWS).map(
    (p, i) =>
      `<tr><td>${i + 1}</td><td class="name"><a href="/project/${esc(encodeURIComponent(p.normalized))}/">${esc(p.name)}</a></td><td>${p.files.toLocaleString('en')}</td><td>${esc(formatBytes(p.bytes))}</td></tr>`,
  );
  return `<section aria-labelledby="${id}">${heading}
<table class="stats">
<thead><tr><th scope="col">#</th><th scope="col">Project</th><th scope="col">Files</th><th scope="col">Size</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></section>`;
}

export function renderStats(stats: StatsInput, upstream: boolean, viewer: Viewer): string {
  const main = `<h1>Statistics</h1>
<section class="panel" aria-label="Totals"><dl class="facts">
<dt>Private (uploaded here)</dt><dd>${summary(stats.private)}</dd>
<dt>Cached from the upstream</dt><dd>${upstream || stats.cached.files ? summary(stats.cached) : 'no upstream'}</dd>
<dt>Together</dt><dd>${bytes(stats.private.bytes + stats.cached.bytes)}</dd>
</dl>
<p class="muted">Cached bytes include each file's <code>.metadata</code> and signature. The same numbers as JSON: <code>curl -H 'Accept: application/json' …/stats/</code>.</p></section>
${table('private-h', 'Largest private projects', stats.private, 'Nothing has been uploaded yet.')}
${table('cached-h', 'Largest cached upstream projects', stats.cached, 'No upstream file is cached yet.')}`;
  return page({ title: 'Statistics', viewer, path: '/stats/' }, main);
}
