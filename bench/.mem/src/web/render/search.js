import { esc, page } from './layout.js';
export const PAGE_SIZE = 20;
const KIND_LABEL = { private: 'private', cached: 'cached', upstream: 'upstream' };
export function renderSearch(query, normalized, pageNumber, result, viewer) {
    const pages = result ? Math.max(1, Math.ceil(result.total / PAGE_SIZE)) : 1;
    const link = (n, text, rel) => `<a href="/search/?q=${esc(encodeURIComponent(query))}&amp;page=${n}" rel="${rel}">${text}</a>`;
    let body;
    if (!result) {
        body = '<p>Type part of a project name in the search box.</p>';
    }
    else if (result.total === 0) {
        body = `<p>No project name contains <strong>${esc(normalized)}</strong>.</p>`;
    }
    else {
        const items = result.hits
            .map((hit) => `<li><a href="/project/${esc(encodeURIComponent(hit.normalized))}/">${esc(hit.name)}</a> <span class="badge${hit.kind === 'private' ? ' private' : ''}">${KIND_LABEL[hit.kind]}</span></li>`)
            .join('\n');
        const first = (pageNumber - 1) * PAGE_SIZE + 1;
        const last = first + result.hits.length - 1;
        const pager = [pageNumber > 1 ? link(pageNumber - 1, '← Previous', 'prev') : '', pageNumber < pages ? link(pageNumber + 1, 'Next →', 'next') : ''].join(' ');
        body = `<p role="status">${result.total.toLocaleString('en')} ${result.total === 1 ? 'project matches' : 'projects match'} <strong>${esc(normalized)}</strong>${result.hits.length ? `; showing ${first.toLocaleString('en')}–${last.toLocaleString('en')} (page ${pageNumber} of ${pages.toLocaleString('en')})` : ''}.</p>
<ul class="plain results">
${items}
</ul>
<nav class="pager" aria-label="Result pages">${pager}</nav>`;
    }
    return page({ title: query ? `Search: ${query}` : 'Search', viewer, query, path: '/search/' }, `<h1>Search</h1>\n${body}`);
}
