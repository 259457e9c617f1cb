/**
 * Web sessions and form tokens. A session is a signed cookie (HMAC-SHA256 with a key kept in the data
 * directory), HttpOnly and SameSite=Strict, naming the user, the moment it ends and a fingerprint of the
 * user's record: removing the user or changing the password ends every session. Each form carries a token
 * derived from the session (or, for HTTP Basic logins, from the user), so a forged POST cannot supply it.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { LRUCache } from 'lru-cache';
import { join } from 'node:path';
export const SESSION_COOKIE = 'larder_session';
/** How long a login lasts. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60_000;
/** The key file, created with a random key on first use (0600). */
export async function loadSessionKey(dataDir) {
    const path = join(dataDir, 'web-session.key');
    const existing = await readFile(path).catch(() => null);
    if (existing && existing.length >= 32)
        return existing;
    const key = randomBytes(32);
    await writeFile(path, key, { mode: 0o600 });
    return key;
}
function fingerprint(user) {
    return createHash('sha256').update(user.createdAt).update('\0').update(user.passwordHash).digest('base64url').slice(0, 16);
}
export class SessionSigner {
    key;
    users;
    clock;
    /** Sessions logged out before their end (their random ids), the most recent 100,000. */
    ended = new LRUCache({ max: 100_000 });
    constructor(key, users, clock) {
        this.key = key;
        this.users = users;
        this.clock = clock;
    }
    mac(purpose, value) {
        return createHmac('sha256', this.key).update(purpose).update('\0').update(value).digest('base64url');
    }
    /** The cookie value for a fresh login of `user`; null when there is no such user. */
    issue(user) {
        const record = this.users.getUser(user);
        if (!record)
            return null;
        const payload = {
            u: record.name,
            e: this.clock.now() + SESSION_LIFETIME_MS,
            n: randomBytes(16).toString('base64url'),
            f: fingerprint(record),
        };
        const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
        return `${body}.${this.mac('session', body)}`;
    }
    /** The session a cookie value proves, or null (bad signature, expired, user gone or changed). */
    verify(cookie) {
        if (!cookie || cookie.length > 1024)
            return null;
        const dot = cookie.indexOf('.');
        if (dot <= 0)
            return null;
        const body = cookie.slice(0, dot);
        if (!sameText(cookie.slice(dot + 1), this.mac('session', body)))
            return null;
        let payload;
        try {
            payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
        }
        catch {
            return null;
        }
        if (typeof payload.e !== 'number' || payload.e <= this.clock.now() || this.ended.has(String(payload.n)))
            return null;
        const record = typeof payload.u === 'string' ? this.users.getUser(payload.u) : undefined;
        if (!record || fingerprint(record) !== payload.f)
            return null;
        return { identity: { user: record.name, admin: record.admin, tokenProjects: null, viaToken: false }, nonce: String(payload.n) };
    }
    /** Logs a session out: its cookie is refused from now on, even if someone kept a copy (in this process). */
    end(session) {
        if (session.nonce)
            this.ended.set(session.nonce, true);
    }
    /** The token every form of this session carries. */
    formToken(session) {
        return session.nonce ? this.mac('form', session.nonce) : this.mac('form-basic', session.identity.user);
    }
    checkFormToken(session, sent) {
        return typeof sent === 'string' && sameText(sent, this.formToken(session));
    }
}
function sameText(a, b) {
    const left = Buffer.from(a);
    const right = Buffer.from(b);
    return left.length === right.length && timingSafeEqual(left, right);
}
