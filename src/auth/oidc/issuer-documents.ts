/**
 * Fetches an OIDC issuer's discovery document and its JWK Set, with the upstream's undici client (time-outs,
 * proxy, redirects checked against the origin policy) and a bounded body. Only issuers the caller allowed
 * are ever asked: `http://` ones on a loopback address only.
 */
import { isSecureIssuerUrl } from '../../config/oidc-settings.js';
import type { Config } from '../../config/schema.js';
import { UpstreamClient } from '../../upstream/client.js';
import { OriginPolicy } from '../../upstream/origin-policy.js';
import { boundedBody, discard } from '../../upstream/read-body.js';
import { isJsonObject } from '../../upstream/json-util.js';

/** Discovery documents and key sets are a few KiB; this leaves room and bounds a hostile answer. */
const MAX_DOCUMENT_BYTES = 256 * 1024;
const DEADLINE_MS = 15_000;

export interface JsonWebKeySet {
  keys: Record<string, unknown>[];
}

/** Is `url` an issuer larder may contact: https, or http on a loopback address? */
export function issuerUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `'${url.slice(0, 100)}' is not a URL`;
  }
  return isSecureIssuerUrl(parsed) ? null : `${parsed.origin}: an issuer must be https:// (http:// only on a loopback address)`;
}

export function asKeySet(value: unknown): JsonWebKeySet | null {
  if (!isJsonObject(value) || !Array.isArray(value.keys) || !value.keys.every(isJsonObject)) return null;
  return { keys: value.keys as Record<string, unknown>[] };
}

export class IssuerDocuments {
  /** One client per origin asked (an issuer, or the origin of its jwks_uri). */
  private readonly clients = new Map<string, UpstreamClient>();

  constructor(private readonly proxy: Pick<Config, 'httpProxy' | 'httpsProxy' | 'noProxy'>) {}

  private clientFor(url: URL): UpstreamClient {
    let client = this.clients.get(url.origin);
    if (!client) {
      const settings = { url: url.origin, username: null, password: null, connectTimeout: 5_000, headersTimeout: 10_000, bodyTimeout: 10_000, retries: 1 };
      client = new UpstreamClient(settings, this.proxy, new OriginPolicy(url.origin, null, []));
      this.clients.set(url.origin, client);
    }
    return client;
  }

  private async getJson(url: string, what: string): Promise<unknown> {
    const problem = issuerUrlProblem(url);
    if (problem) throw new Error(`${what}: ${problem}`);
    const res = await this.clientFor(new URL(url)).get(url, { deadline: DEADLINE_MS, decode: true, headers: { accept: 'application/json' } });
    if (res.status !== 200) {
      discard(res);
      throw new Error(`${what}: ${url} answered ${res.status}`);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of boundedBody(res, MAX_DOCUMENT_BYTES, what)) chunks.push(chunk);
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new Error(`${what}: ${url} did not answer JSON`);
    }
  }

  /** The issuer's key set, by way of its `/.well-known/openid-configuration` → `jwks_uri`. */
  async keySet(issuer: string): Promise<JsonWebKeySet> {
    const discovery = await this.getJson(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, 'OIDC discovery document');
    const jwksUri = isJsonObject(discovery) ? discovery.jwks_uri : undefined;
    if (typeof jwksUri !== 'string') throw new Error(`the discovery document of ${issuer} names no jwks_uri`);
    const keys = asKeySet(await this.getJson(jwksUri, 'OIDC key set'));
    if (!keys) throw new Error(`${jwksUri} is not a JWK Set ({"keys": [...]})`);
    return keys;
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((client) => client.close()));
  }
}
