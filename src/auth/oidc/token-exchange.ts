/**
 * Trusted publishing's token exchange, as pypi.org's `/_/oidc/mint-token`: an OIDC token from an allowed
 * issuer, verified (verify-jwt.ts) and matching the claims of one or more publishers, buys one short-lived
 * upload token for the projects of those publishers. Each OIDC token is exchanged once (its `jti`, or its
 * hash when it has none, is remembered until it expires). Refusals carry warehouse's error codes.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { Clock } from '../../base/clock.js';
import type { PublisherRecord, PublisherStore } from '../../store/publisher-store.js';
import type { PublisherStamp } from '../../store/records.js';
import { hashToken, MINTED_TOKEN_PREFIX } from '../tokens.js';
import type { JsonWebKeySet } from './issuer-documents.js';
import type { IssuerKeys } from './issuer-keys.js';
import { LEEWAY_SECONDS, verifyJwt } from './verify-jwt.js';

/** GitHub's tokens are about 1.5 KB; anything this long is not an OIDC token. */
const MAX_JWT_CHARS = 16 * 1024;
/** Expired minted tokens are kept a day, so that using one answers "expired" (403) rather than "unknown". */
const KEEP_EXPIRED_MS = 86_400_000;
/** Claims recorded with each upload, besides those the publisher matched. */
const IDENTIFYING_CLAIMS = [
  'sub',
  'repository',
  'workflow_ref',
  'job_workflow_ref',
  'ref',
  'sha',
  'environment',
  'project_path',
  'ci_config_ref_uri',
  'pipeline_id',
  'run_id',
];
const MAX_STAMP_VALUE = 512;

export interface TrustedPublishingSettings {
  issuers: readonly string[];
  audience: string;
  tokenTtl: number;
}

export type ErrorCode = 'invalid-payload' | 'invalid-token' | 'invalid-publisher' | 'invalid-reuse-token';
export type MintOutcome = { success: true; token: string; expires: number } | { success: false; code: ErrorCode; description: string };

const refuse = (code: ErrorCode, description: string): MintOutcome => ({ success: false, code, description });

/** Does the token carry every claim of the publisher with exactly its value? */
export function claimsMatch(publisher: Pick<PublisherRecord, 'claims'>, claims: JWTPayload): boolean {
  return Object.entries(publisher.claims).every(([key, value]) => {
    const actual = claims[key];
    return (typeof actual === 'string' || typeof actual === 'number' || typeof actual === 'boolean') && String(actual) === value;
  });
}

function stampOf(matched: PublisherRecord[], issuer: string, claims: JWTPayload): PublisherStamp {
  const names = new Set([...IDENTIFYING_CLAIMS, ...matched.flatMap((p) => Object.keys(p.claims))]);
  const kept: Record<string, string> = {};
  for (const name of names) {
    const value = claims[name];
    if (typeof value === 'string' || typeof value === 'number') kept[name] = String(value).slice(0, MAX_STAMP_VALUE);
  }
  return { ids: matched.map((p) => p.id), issuer, claims: kept };
}

export class TokenExchange {
  constructor(
    private readonly settings: TrustedPublishingSettings,
    private readonly store: PublisherStore,
    private readonly issuerKeys: IssuerKeys,
    private readonly clock: Clock,
  ) {}

  async mint(body: unknown): Promise<MintOutcome> {
    const token = (body as { token?: unknown } | null)?.token;
    if (typeof body !== 'object' || body === null || Array.isArray(body) || typeof token !== 'string') {
      return refuse('invalid-payload', 'the body must be a JSON object {"token": "<OIDC token>"}');
    }
    if (token.length > MAX_JWT_CHARS) return refuse('invalid-payload', `the token is longer than ${MAX_JWT_CHARS} characters`);
    let issuer: unknown;
    try {
      // jose is loaded by the first exchange, not at start: most deployments never see one.
      issuer = (await import('jose')).decodeJwt(token).iss;
    } catch {
      return refuse('invalid-payload', 'malformed JWT');
    }
    if (typeof issuer !== 'string' || !this.settings.issuers.includes(issuer)) {
      return refuse('invalid-payload', 'unknown trusted publishing issuer (not in LARDER_OIDC_ISSUERS)');
    }
    const publishers = await this.store.publishersOf(issuer);
    const now = this.clock.now();
    const verified = await verifyJwt(token, { issuer, audience: this.settings.audience, now, keys: (stale) => this.keysOf(issuer, publishers, stale) });
    if (!verified.ok) return refuse('invalid-token', `malformed or invalid token: ${verified.description}`);
    const { claims } = verified;
    const matched = publishers.filter((p) => claimsMatch(p, claims));
    if (matched.length === 0)
      return refuse('invalid-publisher', `valid token, but no corresponding publisher (issuer ${issuer}, sub ${String(claims.sub ?? '-')})`);
    const jti = typeof claims.jti === 'string' && claims.jti !== '' ? claims.jti : `sha256:${hashToken(token)}`;
    const jtiExpiry = ((claims.exp as number) + LEEWAY_SECONDS) * 1000;
    if (!(await this.store.useJti(issuer, jti, jtiExpiry, now))) return refuse('invalid-reuse-token', 'invalid token: already used');
    return this.issue(matched, stampOf(matched, issuer, claims), now);
  }

  /** Keys pinned with `--jwks` for the issuer (then only those), else the issuer's own. */
  private async keysOf(issuer: string, publishers: PublisherRecord[], stale: boolean): Promise<JsonWebKeySet> {
    const pinned = publishers.filter((p) => p.jwks !== null).flatMap((p) => p.jwks!.keys);
    if (publishers.some((p) => p.jwks !== null)) return { keys: pinned };
    return this.issuerKeys.keys(issuer, stale);
  }

  private async issue(matched: PublisherRecord[], publisher: PublisherStamp, now: number): Promise<MintOutcome> {
    const token = MINTED_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const hash = createHash('sha256').update(token).digest('hex');
    const expiresAt = now + this.settings.tokenTtl;
    const projects = [...new Set(matched.map((p) => p.project))].sort();
    await this.store.putMintedToken(
      { hash, id: hash.slice(0, 12), projects, publisher, createdAt: new Date(now).toISOString(), expiresAt },
      now - KEEP_EXPIRED_MS,
    );
    return { success: true, token, expires: Math.floor(expiresAt / 1000) };
  }
}
