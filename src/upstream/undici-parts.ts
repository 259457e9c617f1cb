/**
 * The parts of undici larder uses, loaded from their own files: undici's index also loads fetch,
 * WebSocket, EventSource, the cache stores, the mock agents and HTTP/2 (about 11 MiB of resident memory
 * in every larder). undici has no `exports` map, so these files are reachable; the types are undici's own.
 * What the index does for them is repeated here: the request API is put on the dispatcher prototype.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const load = createRequire(import.meta.url);

const DispatcherClass = load('undici/lib/dispatcher/dispatcher.js') as { prototype: object };
Object.assign(DispatcherClass.prototype, load('undici/lib/api/index.js') as object);

export const Agent = load('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export const EnvHttpProxyAgent = load('undici/lib/dispatcher/env-http-proxy-agent.js') as typeof Undici.EnvHttpProxyAgent;
export const interceptors = {
  retry: load('undici/lib/interceptor/retry.js') as typeof Undici.interceptors.retry,
  decompress: load('undici/lib/interceptor/decompress.js') as typeof Undici.interceptors.decompress,
};

/** undici's `request(url, options)`: a GET (unless `method` says otherwise) of `url` through `dispatcher`. */
export function request(
  url: URL,
  {
    dispatcher,
    ...options
  }: Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & { method?: Undici.Dispatcher.HttpMethod; dispatcher: Undici.Dispatcher },
): Promise<Undici.Dispatcher.ResponseData> {
  return dispatcher.request({
    ...options,
    origin: url.origin,
    path: url.search ? `${url.pathname}${url.search}` : url.pathname,
    method: options.method ?? 'GET',
  });
}
