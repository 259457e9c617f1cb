/** Client side: timed single requests (undici, keep-alive) and read-and-discard downloads (curl). */
import { Client } from 'undici';
import { run } from './proc.js';

export const CURL = process.env.BENCH_CURL ?? '/usr/bin/curl';

export const PIP_ACCEPT = 'application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01';
export const HTML_ACCEPT = 'text/html';
export const PIP_ENCODING = 'gzip, deflate';

export interface Timed {
  ms: number;
  status: number;
  bytes: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer | null;
}

/** A keep-alive connection to one origin; requests on it are timed from send to the last body byte. */
export class TimedClient {
  private readonly client: Client;

  constructor(origin: string) {
    this.client = new Client(origin, { keepAliveTimeout: 60_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
  }

  async get(path: string, headers: Record<string, string> = {}, keepBody = false): Promise<Timed> {
    const t0 = performance.now();
    const res = await this.client.request({ method: 'GET', path, headers });
    let bytes = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (keepBody) chunks.push(chunk);
    }
    const ms = performance.now() - t0;
    return { ms, status: res.statusCode, bytes, headers: res.headers, body: keepBody ? Buffer.concat(chunks) : null };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

export interface CurlResult {
  status: number;
  bytes: number;
  /** curl's own time_total, seconds (excludes process start-up). */
  seconds: number;
  cache: string;
}

/** GET with curl, body to /dev/null. */
export async function curlDiscard(url: string, headers: Record<string, string> = {}, timeoutMs = 120_000): Promise<CurlResult> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code} %{size_download} %{time_total} %header{x-larder-cache}'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(url);
  const result = await run(CURL, args, timeoutMs);
  if (result.code !== 0 || result.timedOut) throw new Error(`curl ${url} failed (${result.code}): ${result.stderr}`);
  const [status, bytes, seconds, cache] = result.stdout.trim().split(' ');
  return { status: Number(status), bytes: Number(bytes), seconds: Number(seconds), cache: cache ?? '' };
}

/** `n` parallel curl downloads of `url`; aggregate MB/s over the wall time from the first start to the last end. */
export async function parallelDownload(url: string, n: number, expectBytes: number): Promise<{ mbPerSec: number; seconds: number }> {
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: n }, () => curlDiscard(url)));
  const seconds = (performance.now() - t0) / 1000;
  for (const r of results) {
    if (r.status !== 200 || r.bytes !== expectBytes) throw new Error(`download of ${url}: status ${r.status}, ${r.bytes} bytes (expected ${expectBytes})`);
  }
  return { mbPerSec: (n * expectBytes) / 1e6 / seconds, seconds };
}
