/**
 * Another site for the browser tests' cross-site forgeries: a tiny HTTP server whose pages are given as
 * HTML. It listens on 127.0.0.1 but is addressed as `localhost`, which to the browser is another site than
 * a larder at 127.0.0.1.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtherSite {
  /** `http://localhost:<port>/`. */
  url: string;
  close(): Promise<void>;
}

/** Serves `pages[path]` as HTML (404 for any other path). */
export async function startOtherSite(pages: Record<string, string>): Promise<OtherSite> {
  const server = createServer((req, res) => {
    const page = pages[req.url ?? ''];
    res.statusCode = page === undefined ? 404 : 200;
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(page ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Text as an HTML attribute value or element text. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
