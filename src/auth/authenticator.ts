/**
 * Turns credentials into an identity, and decides what an identity may do to a project. Failed logins are
 * limited per client address and per (user name, address) (login-limiter.ts); a user name that does not
 * exist costs one password hash too. An expired token is refused with a 403 that says so (it is not a
 * guess, so it is not counted).
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../base/clock.js';
import { forbidden, LarderError } from '../base/errors.js';
import type { IndexStore } from '../store/index-store.js';
import type { MintedTokenRecord } from '../store/publisher-store.js';
import type { ProjectRecord, PublisherStamp } from '../store/records.js';
import type { Credentials } from './credentials.js';
import type { LoginLimiter } from './login-limiter.js';
import type { PasswordVerifier } from './password-hasher.js';
import { dummyHash } from './passwords.js';
import { hashToken, isExpired, MINTED_TOKEN_PREFIX } from './tokens.js';

export interface Identity {
  user: string;
  admin: boolean;
  /** Set when authenticated by a token limited to these projects. */
  tokenProjects: string[] | null;
  viaToken: boolean;
  /** The id of the API token that proved it (the download audit records it). */
  tokenId?: string;
  /** A token minted by trusted publishing: it may upload to the existing projects of `tokenProjects`, nothing else. */
  uploadOnly?: boolean;
  /** The trusted publisher whose OIDC token minted the token. */
  publisher?: PublisherStamp;
}

/** Where the tokens minted by trusted publishing are looked up. */
export interface MintedTokens {
  getMintedToken(hash: string): Promise<MintedTokenRecord | undefined>;
}

/** Why a login was refused before its credentials were judged: 429 (failed-login limits) or 503 (hashing queue full). */
export type LoginRefusal = 'rate_limited' | 'hashing_busy';

const REFUSAL_OF: Partial<Record<string, LoginRefusal>> = { too_many_failed_logins: 'rate_limited', password_checks_busy: 'hashing_busy' };

export class Authenticator {
  /** scrypt is slow on purpose; pip sends credentials with every request, so good checks are remembered a while. */
  private readonly verified = new LRUCache<string, true>({ max: 1000, ttl: 10 * 60_000 });
  /** Checks under way, by the same key: concurrent requests with the same credentials share one hash. */
  private readonly checking = new Map<string, Promise<boolean>>();
  private readonly dummy = dummyHash();

  constructor(
    private readonly store: IndexStore,
    private readonly passwords: PasswordVerifier,
    private readonly limiter: LoginLimiter,
    private readonly clock: Clock,
    /** Told of every 429 and 503 a login gets (metrics). */
    private readonly onRefusal: (reason: LoginRefusal) => void = () => {},
    private readonly minted: MintedTokens | null = null,
  ) {}

  /**
   * The identity `credentials` prove, or null (a failed login, counted). Throws 429 without checking
   * anything when the address, or the address for this user name, has too many recent failures, even for
   * good credentials; 503 when the hashing queue is full; 403 (token_expired) for a token past its expiry.
   */
  async authenticate(credentials: Credentials | null, address: string): Promise<Identity | null> {
    try {
      return await this.judge(credentials, address);
    } catch (err) {
      const refusal = err instanceof LarderError ? REFUSAL_OF[err.code] : undefined;
      if (refusal) this.onRefusal(refusal);
      throw err;
    }
  }

  private async judge(credentials: Credentials | null, address: string): Promise<Identity | null> {
    const name = credentials?.kind === 'password' ? credentials.user : null;
    this.limiter.check(address, name);
    if (credentials?.kind === 'password') return this.byPassword(credentials.user, credentials.password, address);
    if (!credentials) {
      this.limiter.fail(address, null);
      return null;
    }
    const hash = hashToken(credentials.token);
    if (this.minted && credentials.token.startsWith(MINTED_TOKEN_PREFIX)) {
      const identity = await this.byMintedToken(hash);
      if (identity) return identity;
    }
    const known = async () => {
      const record = await this.store.getTokenByHash(hash);
      const user = record && (await this.store.getUser(record.user));
      if (!record || !user) return null;
      if (isExpired(record, this.clock.now())) {
        const when = `${record.expiresAt!.slice(0, 16).replace('T', ' ')} UTC`;
        throw forbidden(
          'token_expired',
          `API token ${record.id} expired on ${when}: create a new one (on the web page /account/ or with larder token create).`,
        );
      }
      return { user: user.name, admin: user.admin, tokenProjects: record.projects, viaToken: true, tokenId: record.id };
    };
    const identity = await known();
    if (identity) return identity;
    // Checked again and counted with no await between (concurrent guesses were looked up meanwhile), so they
    // cannot get past the limit. A token made on another node a moment ago is found once this node's reads
    // have caught up; then the failure is taken back.
    this.limiter.check(address, null);
    const attempt = this.limiter.fail(address, null);
    await this.store.catchUp().catch(() => {});
    const later = await known();
    if (later) this.limiter.forgive(attempt);
    return later;
  }

  private async byMintedToken(hash: string): Promise<Identity | null> {
    const record = await this.minted!.getMintedToken(hash);
    if (!record) return null;
    if (record.expiresAt <= this.clock.now()) {
      const when = `${new Date(record.expiresAt).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
      throw forbidden('token_expired', `The upload token minted by trusted publishing expired on ${when}: mint a new one (POST /_/oidc/mint-token).`);
    }
    const user = `publisher:${record.publisher.ids.join(',')}`;
    return { user, admin: false, tokenProjects: record.projects, viaToken: true, uploadOnly: true, publisher: record.publisher };
  }

  private async byPassword(name: string, password: string, address: string): Promise<Identity | null> {
    const user = await this.store.getUser(name);
    // From here to the count, nothing is awaited: concurrent guesses (looked up meanwhile) cannot get past the limit.
    this.limiter.check(address, name);
    const stored = user?.passwordHash ?? this.dummy;
    const key = createHash('sha256').update(stored).update('\0').update(password).digest('hex');
    if (user && this.verified.has(key)) {
      this.limiter.succeeded(address, name);
      return { user: user.name, admin: user.admin, tokenProjects: null, viaToken: false };
    }
    let ok: boolean;
    const running = this.checking.get(key);
    if (running) {
      ok = await running;
      if (!ok) this.limiter.fail(address, name);
    } else {
      // Counted before the hash runs, so concurrent guesses cannot get past the limit; taken back on success.
      const attempt = this.limiter.begin(address, name);
      const check = this.passwords.verify(password, stored);
      this.checking.set(key, check);
      try {
        ok = await check;
      } catch (err) {
        this.limiter.forgive(attempt);
        throw err;
      } finally {
        this.checking.delete(key);
      }
      if (ok) this.limiter.forgive(attempt);
      else this.limiter.confirm(attempt);
    }
    if (!user || !ok) return null;
    this.limiter.succeeded(address, name);
    this.verified.set(key, true);
    return { user: user.name, admin: user.admin, tokenProjects: null, viaToken: false };
  }
}

/**
 * May `who` upload to (or manage) `project`? A project that does not exist yet may be created by anyone signed in,
 * but not with a token minted by trusted publishing.
 */
export function mayWrite(who: Identity, projectName: string, project: ProjectRecord | undefined): boolean {
  if (who.tokenProjects && !who.tokenProjects.includes(projectName)) return false;
  if (who.uploadOnly) return project !== undefined;
  if (!project) return true;
  return who.admin || project.owners.includes(who.user) || project.maintainers.includes(who.user);
}

/** Owner-only actions (adding maintainers). */
export function mayOwn(who: Identity, projectName: string, project: ProjectRecord): boolean {
  if (who.uploadOnly) return false;
  if (who.tokenProjects && !who.tokenProjects.includes(projectName)) return false;
  return who.admin || project.owners.includes(who.user);
}
