/**
 * The one HTTP client larder uses to reach the upstream: a keep-alive undici dispatcher with time-outs,
 * optional proxy, credentials for the upstream's own origin, undici's retry interceptor for idempotent
 * GETs, its decompress interceptor for documents, redirects followed by hand so that every hop is checked
 * against the origin policy, and an optional total deadline per request.
 */
import { Agent, EnvHttpProxyAgent, interceptors, request, type Dispatcher } from 'undici';
import type { Config, Upstream } from '../config/schema.js';
import { formatDuration } from '../base/units.js';
import { observing, type UpstreamObserver } from './observing-interceptor.js';
import type { OriginPolicy } from './origin-policy.js';
import { classify, UpstreamError } from './upstream-error.js';
import { LARDER_VERSION } from '../base/version.js';

export { UpstreamError } from './upstream-error.js';
export type { UpstreamObserver } from './observing-interceptor.js';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Dispatcher.ResponseData['body'];
  /** The URL that answered (after redirects), without credentials. */
  url: string;
  /** Turns an error met while reading `body` into an UpstreamError (a passed deadline becomes 'timeout'). */
  describe(err: unknown): UpstreamError;
}

export interface GetOptions {
  headers?: Record<string, string>;
  /** Aborts the request and its body (e.g. every client of a download has gone). */
  signal?: AbortSignal;
  /** Total time for the request, its retries, redirects and its body, ms. */
  deadline?: number;
  /** Undo Content-Encoding (documents); files are fetched as they are. */
  decode?: boolean;
}

/** The proxy settings, shared by every upstream. */
type ProxyConfig = Pick<Config, 'httpProxy' | 'httpsProxy' | 'noProxy'>;
type ClientSettings = Pick<Upstream, 'url' | 'username' | 'password' | 'connectTimeout' | 'headersTimeout' | 'bodyTimeout' | 'retries'>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
/** The largest decoded document any caller reads; callers enforce their own, smaller bounds. */
const MAX_DECODED_BYTES = 512 * 1024 * 1024;

export class UpstreamClient {
  private readonly agent: Dispatcher;
  private readonly files: Dispatcher;
  private readonly documents: Dispatcher;
  private readonly authOrigin: string | null;
  private readonly authorization: string | null;

  constructor(
    upstream: ClientSettings,
    proxy: ProxyConfig,
    private readonly origins: OriginPolicy,
    private readonly observer: UpstreamObserver = { request() {}, failure() {} },
  ) {
    const options = {
      connect: { timeout: upstream.connectTimeout },
      headersTimeout: upstream.headersTimeout,
      bodyTimeout: upstream.bodyTimeout,
      keepAliveTimeout: 30_000,
      connections: 32,
    };
    this.agent =
      proxy.httpProxy || proxy.httpsProxy
        ? new EnvHttpProxyAgent({ ...options, httpProxy: proxy.httpProxy ?? '', httpsProxy: proxy.httpsProxy ?? '', noProxy: proxy.noProxy ?? '' })
        : new Agent(options);
    // compose() wraps in order: the observer sees every attempt, the retry interceptor sits around it.
    const retry = interceptors.retry({
      maxRetries: upstream.retries,
      minTimeout: 100,
      maxTimeout: 2_000,
      timeoutFactor: 2,
      methods: ['GET'],
      statusCodes: [429, 500, 502, 503, 504],
      errorCodes: [
        'ECONNRESET',
        'ECONNREFUSED',
        'EPIPE',
        'ENETUNREACH',
        'EHOSTUNREACH',
        'UND_ERR_SOCKET',
        'UND_ERR_CONNECT_TIMEOUT',
        'UND_ERR_HEADERS_TIMEOUT',
      ],
      // The last failed answer is handed on as it is, so callers see the upstream's own status.
      throwOnError: false,
    });
    this.files = this.agent.compose(observing(observer), retry);
    this.documents = this.agent.compose(observing(observer), retry, interceptors.decompress({ maxSize: MAX_DECODED_BYTES }));
    let user = upstream.username;
    let password = upstream.password;
    const url = new URL(upstream.url);
    if (url.username) {
      user = decodeURIComponent(url.username);
      password = decodeURIComponent(url.password);
    }
    this.authOrigin = user ? url.origin : null;
    this.authorization = user ? `Basic ${Buffer.from(`${user}:${password ?? ''}`).toString('base64')}` : null;
  }

  /** The URL without userinfo (credentials travel in a header). */
  static stripCredentials(url: string): string {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  }

  private headersFor(url: URL, extra: Record<string, string>, decode: boolean): Record<string, string> {
    const headers: Record<string, string> = {
      'user-agent': `larder/${LARDER_VERSION}`,
      'accept-encoding': decode ? 'gzip, deflate, br' : 'identity',
      ...extra,
    };
    if (this.authorization && url.origin === this.authOrigin) headers.authorization = this.authorization;
    return headers;
  }

  /**
   * GET, with retries on connection errors, 429 and 5xx, and redirects followed when the origin policy
   * allows their target. Any final status is returned; the caller must consume or dump the body.
   */
  async get(rawUrl: string, options: GetOptions = {}): Promise<UpstreamResponse> {
    const deadline = options.deadline === undefined ? null : AbortSignal.timeout(options.deadline);
    const signals = [options.signal, deadline].filter((s): s is AbortSignal => s !== undefined && s !== null);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const describe = (err: unknown): UpstreamError => {
      if (err instanceof UpstreamError) return err;
      if (deadline?.aborted) {
        this.observer.failure('timeout');
        return new UpstreamError(`did not answer within the ${formatDuration(options.deadline!)} deadline (LARDER_UPSTREAM_DEADLINE)`, 'timeout');
      }
      return classify(err);
    };
    const decode = options.decode ?? false;
    let url = new URL(UpstreamClient.stripCredentials(rawUrl));
    for (let hop = 0; ; hop++) {
      url.hash = '';
      const refusal = this.origins.refusal(url);
      if (refusal) {
        const how = hop === 0 ? `larder does not fetch ${url.href}` : `the upstream redirected to ${url.href}, which larder does not follow`;
        this.observer.failure('refused');
        throw new UpstreamError(`${how}: ${refusal}`, 'refused');
      }
      if (signal?.aborted && !deadline?.aborted) throw signal.reason;
      let res: Dispatcher.ResponseData;
      try {
        res = await request(url, {
          method: 'GET',
          headers: this.headersFor(url, options.headers ?? {}, decode),
          dispatcher: decode ? this.documents : this.files,
          signal,
        });
      } catch (err) {
        if (signal?.aborted && !deadline?.aborted) throw err;
        throw describe(err);
      }
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode) && typeof location === 'string') {
        await res.body.dump().catch(() => {});
        if (hop >= MAX_REDIRECTS) throw new UpstreamError(`redirected more than ${MAX_REDIRECTS} times, last to ${location}`, 'invalid');
        try {
          url = new URL(location, url);
        } catch {
          throw new UpstreamError(`redirected to ${JSON.stringify(location)}, which is not a URL`, 'invalid');
        }
        continue;
      }
      const flat: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(res.headers)) flat[k] = Array.isArray(v) ? v.join(', ') : v;
      return { status: res.statusCode, headers: flat, body: res.body, url: url.href, describe };
    }
  }

  /** Stops at once: requests still under way (background revalidations, say) are cut. */
  async close(): Promise<void> {
    await this.agent.destroy();
  }
}
