/** The page of a web request that failed: the status in words and larder's one-line message. */
import { STATUS_CODES } from 'node:http';
import { esc, page, type Viewer } from './layout.js';

export function renderError(status: number, message: string, viewer: Viewer): string {
  const title = STATUS_CODES[status] ?? 'Error';
  const main = `<h1>${esc(title)}</h1>
<p class="notice reason" role="alert">${esc(message)}</p>
<p><a href="/">Home</a> · <a href="/search/">Search projects</a> · <a href="/help/">Help</a></p>`;
  return page({ title, viewer }, main);
}
