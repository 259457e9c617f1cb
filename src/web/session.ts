/**
 * Web sessions and form tokens. A session is a signed cookie (HMAC-SHA256 with a key kept in the data
 * directory), HttpOnly and SameSite=Strict, naming the user, the moment it ends and a fingerprint of the
 * user's record: removing the user or changing the password ends every session. A logout is recorded in the
 * index store, so that a kept copy of the cookie is refused after a restart and by every node sharing the
 * store. Each form carries a token derived from the session (or, for HTTP Basic logins, from the user), so
 * a forged POST cannot supply it.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { Identity } from '../auth/authenticator.js';
import type { Clock } from '../base/clock.js';
import type { IndexStore } from '../store/index-store.js';
import { dataLayout } from '../store/data-layout.js';
import type { UserRecord } from '../store/records.js';

export const SESSION_COOKIE = 'larder_session';
/** How long a login lasts. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60_000;

interface SessionPayload {
  /** User name. */
  u: string;
  /** End of the session, ms since the epoch. */
  e: number;
  /** Random id: what the form token is derived from. */
  n: string;
  /** Fingerprint of the user record the session was made for. */
  f: string;
}

export interface WebSession {
  identity: Identity;
  /** Present when the identity came from the session cookie (not from HTTP Basic). */
  nonce: string | null;
  /** When the cookie's session ends (ms); null for HTTP Basic. */
  endsAt: number | null;
}

/** The key file, created with a random key on first use (0600). */
/**
 * The key web sessions and form tokens are signed with: derived from `secret` when one is set (every node
 * behind one balancer must share it), else a random key kept in the data directory.
 */
export async function loadSessionKey(dataDir: string, secret: string | null = null): Promise<Buffer> {
  if (secret !== null) return createHash('sha256').update('larder web session key\0').update(secret).digest();
  const path = dataLayout(dataDir).sessionKey;
  const existing = await readFile(path).catch(() => null);
  if (existing && existing.length >= 32) return existing;
  const key = randomBytes(32);
  await writeFile(path, key, { mode: 0o600 });
  return key;
}

function fingerprint(user: UserRecord): string {
  return createHash('sha256').update(user.createdAt).update('\0').update(user.passwordHash).digest('base64url').slice(0, 16);
}

export class SessionSigner {
  constructor(
    private readonly key: Buffer,
    private readonly users: Pick<IndexStore, 'getUser' | 'isSessionEnded' | 'endSession'>,
    private readonly clock: Clock,
  ) {}

  private mac(purpose: string, value: string): string {
    return createHmac('sha256', this.key).update(purpose).update('\0').update(value).digest('base64url');
  }

  /** The cookie value for a fresh login of `user`; null when there is no such user. */
  async issue(user: string): Promise<string | null> {
    const record = await this.users.getUser(user);
    if (!record) return null;
    const payload: SessionPayload = {
      u: record.name,
      e: this.clock.now() + SESSION_LIFETIME_MS,
      n: randomBytes(16).toString('base64url'),
      f: fingerprint(record),
    };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac('session', body)}`;
  }

  /** The session a cookie value proves, or null (bad signature, expired, user gone or changed). */
  async verify(cookie: string | undefined): Promise<WebSession | null> {
    if (!cookie || cookie.length > 1024) return null;
    const dot = cookie.indexOf('.');
    if (dot <= 0) return null;
    const body = cookie.slice(0, dot);
    if (!sameText(cookie.slice(dot + 1), this.mac('session', body))) return null;
    let payload: SessionPayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SessionPayload;
    } catch {
      return null;
    }
    if (typeof payload.e !== 'number' || payload.e <= this.clock.now() || (await this.users.isSessionEnded(String(payload.n)))) return null;
    const record = typeof payload.u === 'string' ? await this.users.getUser(payload.u) : undefined;
    if (!record || fingerprint(record) !== payload.f) return null;
    return { identity: { user: record.name, admin: record.admin, tokenProjects: null, viaToken: false }, nonce: String(payload.n), endsAt: payload.e };
  }

  /** Logs a session out: its cookie is refused from now on, even where someone kept a copy. */
  async end(session: WebSession): Promise<void> {
    if (session.nonce && session.endsAt !== null) await this.users.endSession({ id: session.nonce, until: session.endsAt }, this.clock.now());
  }

  /** The token every form of this session carries. */
  formToken(session: WebSession): string {
    return session.nonce ? this.mac('form', session.nonce) : this.mac('form-basic', session.identity.user);
  }

  checkFormToken(session: WebSession, sent: unknown): boolean {
    return typeof sent === 'string' && sameText(sent, this.formToken(session));
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
