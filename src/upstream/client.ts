/**
 * The one HTTP client larder uses to reach the upstream: a keep-alive undici dispatcher with time-outs,
 * optional proxy, credentials for the upstream's own origin, and bounded retries of idempotent GETs.
 */
import { pipeline } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, EnvHttpProxyAgent, interceptors, request, type Dispatcher } from 'undici';
import type { Config } from '../config/schema.js';

export const LARDER_VERSION = '0.1.0';

export class UpstreamError extends Error {
  constructor(
    message: string,
    /** 'timeout' for time-outs, 'unreachable' for connection errors, 'status' for bad statuses, 'invalid' for bad content. */
    readonly kind: 'timeout' | 'unreachable' | 'status' | 'invalid',
    readonly status?: number,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Dispatcher.ResponseData['body'];
  url: string;
}

type ClientConfig = Pick<
  Config,
  | 'upstream'
  | 'upstreamUsername'
  | 'upstreamPassword'
  | 'upstreamConnectTimeout'
  | 'upstreamHeadersTimeout'
  | 'upstreamBodyTimeout'
  | 'upstreamRetries'
  | 'httpProxy'
  | 'httpsProxy'
  | 'noProxy'
>;

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

function describe(err: unknown): UpstreamError {
  if (err instanceof UpstreamError) return err;
  const code = (err as { code?: string }).code ?? '';
  const cause = (err as { cause?: { code?: string } }).cause?.code ?? '';
  if (TIMEOUT_CODES.has(code) || TIMEOUT_CODES.has(cause)) return new UpstreamError(`timed out (${code || cause})`, 'timeout');
  return new UpstreamError(`${code || cause || 'connection failed'}: ${(err as Error).message}`, 'unreachable');
}

/** The response body with its Content-Encoding (gzip, deflate, br) undone. */
export function decodedBody(res: UpstreamResponse): AsyncIterable<Buffer> {
  const encoding = (res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : null;
  if (!decoder) return res.body;
  return pipeline(res.body, decoder, () => {});
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Told of every upstream request and failure (the metrics hook). */
export interface UpstreamObserver {
  request(): void;
  failure(kind: UpstreamError['kind']): void;
}

export class UpstreamClient {
  private readonly dispatcher: Dispatcher;
  private readonly closable: Dispatcher;
  private readonly authOrigin: string | null;
  private readonly authorization: string | null;

  constructor(
    private readonly config: ClientConfig,
    private readonly observer: UpstreamObserver = { request() {}, failure() {} },
  ) {
    const options = {
      connect: { timeout: config.upstreamConnectTimeout },
      headersTimeout: config.upstreamHeadersTimeout,
      bodyTimeout: config.upstreamBodyTimeout,
      keepAliveTimeout: 30_000,
      connections: 32,
    };
    const base =
      config.httpProxy || config.httpsProxy
        ? new EnvHttpProxyAgent({ ...options, httpProxy: config.httpProxy ?? '', httpsProxy: config.httpsProxy ?? '', noProxy: config.noProxy ?? '' })
        : new Agent(options);
    this.closable = base;
    this.dispatcher = base.compose(interceptors.redirect({ maxRedirections: 5 }));
    let user = config.upstreamUsername;
    let password = config.upstreamPassword;
    let origin: string | null = null;
    if (config.upstream) {
      const url = new URL(config.upstream);
      origin = url.origin;
      if (url.username) {
        user = decodeURIComponent(url.username);
        password = decodeURIComponent(url.password);
      }
    }
    this.authOrigin = user ? origin : null;
    this.authorization = user ? `Basic ${Buffer.from(`${user}:${password ?? ''}`).toString('base64')}` : null;
  }

  /** The URL without userinfo (credentials travel in a header). */
  static stripCredentials(url: string): string {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  }

  private headersFor(url: string, extra: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { 'user-agent': `larder/${LARDER_VERSION}`, ...extra };
    if (this.authorization && new URL(url).origin === this.authOrigin) headers.authorization = this.authorization;
    return headers;
  }

  /**
   * GET with retries on connection errors and 5xx (the body of a failed attempt is discarded).
   * Any status is returned; the caller must consume or dump the body.
   */
  async get(rawUrl: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<UpstreamResponse> {
    const url = UpstreamClient.stripCredentials(rawUrl);
    let lastError: UpstreamError | null = null;
    for (let attempt = 0; attempt <= this.config.upstreamRetries; attempt++) {
      if (attempt > 0) await sleep(100 * 2 ** (attempt - 1));
      try {
        this.observer.request();
        const res = await request(url, { method: 'GET', headers: this.headersFor(url, headers), dispatcher: this.dispatcher, signal });
        if (res.statusCode >= 500) this.observer.failure('status');
        if (res.statusCode >= 500 && attempt < this.config.upstreamRetries) {
          await res.body.dump();
          lastError = new UpstreamError(`answered ${res.statusCode}`, 'status', res.statusCode);
          continue;
        }
        const flat: Record<string, string | undefined> = {};
        for (const [k, v] of Object.entries(res.headers)) flat[k] = Array.isArray(v) ? v.join(', ') : v;
        return { status: res.statusCode, headers: flat, body: res.body, url };
      } catch (err) {
        if (signal?.aborted) throw err;
        lastError = describe(err);
        this.observer.failure(lastError.kind);
      }
    }
    throw lastError ?? new UpstreamError('request failed', 'unreachable');
  }

  async close(): Promise<void> {
    await this.closable.close();
  }
}
