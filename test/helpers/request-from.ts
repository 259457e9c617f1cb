/** One request from a chosen loopback source address (127.0.0.x, as Linux allows), for per-address limits. */
import { request } from 'node:http';

export interface Answer {
  status: number;
  reason: string;
  retryAfter: string | undefined;
  body: string;
  ms: number;
}

export function requestFrom(url: string, opts: { method?: string; auth?: string; from?: string } = {}): Promise<Answer> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = opts.auth ? { Authorization: opts.auth } : {};
    const req = request(url, { method: opts.method ?? 'GET', headers, agent: false, localAddress: opts.from ?? '127.0.0.1' }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () =>
        resolve({ status: res.statusCode!, reason: res.statusMessage ?? '', retryAfter: res.headers['retry-after'], body, ms: performance.now() - start }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}
