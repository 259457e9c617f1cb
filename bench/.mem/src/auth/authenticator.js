/**
 * Turns credentials into an identity, and decides what an identity may do to a project. Failed logins are
 * limited per client address and user name; a user name that does not exist costs one password hash too.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { dummyHash } from './passwords.js';
import { hashToken } from './tokens.js';
export class Authenticator {
    store;
    passwords;
    limiter;
    /** scrypt is slow on purpose; pip sends credentials with every request, so good checks are remembered a while. */
    verified = new LRUCache({ max: 1000, ttl: 10 * 60_000 });
    /** Checks under way, by the same key: concurrent requests with the same credentials share one hash. */
    checking = new Map();
    dummy = dummyHash();
    constructor(store, passwords, limiter) {
        this.store = store;
        this.passwords = passwords;
        this.limiter = limiter;
    }
    /**
     * The identity `credentials` prove, or null (a failed login, counted). Throws 429 without checking
     * anything when the address or the user name has too many recent failures, even for good credentials.
     */
    async authenticate(credentials, address) {
        const name = credentials?.kind === 'password' ? credentials.user : null;
        this.limiter.check(address, name);
        if (credentials?.kind === 'password')
            return this.byPassword(credentials.user, credentials.password, address);
        const record = credentials && this.store.getTokenByHash(hashToken(credentials.token));
        const user = record && this.store.getUser(record.user);
        if (!record || !user) {
            this.limiter.fail(address, null);
            return null;
        }
        return { user: user.name, admin: user.admin, tokenProjects: record.projects, viaToken: true };
    }
    async byPassword(name, password, address) {
        const user = this.store.getUser(name);
        const stored = user?.passwordHash ?? this.dummy;
        const key = createHash('sha256').update(stored).update('\0').update(password).digest('hex');
        if (user && this.verified.has(key))
            return { user: user.name, admin: user.admin, tokenProjects: null, viaToken: false };
        let ok;
        const running = this.checking.get(key);
        if (running) {
            ok = await running;
            if (!ok)
                this.limiter.fail(address, name);
        }
        else {
            // Counted before the hash runs, so concurrent guesses cannot get past the limit; taken back on success.
            const attempt = this.limiter.fail(address, name);
            const check = this.passwords.verify(password, stored);
            this.checking.set(key, check);
            try {
                ok = await check;
            }
            catch (err) {
                this.limiter.forgive(attempt);
                throw err;
            }
            finally {
                this.checking.delete(key);
            }
            if (ok)
                this.limiter.forgive(attempt);
        }
        if (!user || !ok)
            return null;
        this.verified.set(key, true);
        return { user: user.name, admin: user.admin, tokenProjects: null, viaToken: false };
    }
}
/** May `who` upload to (or manage) `project`? A project that does not exist yet may be created by anyone signed in. */
export function mayWrite(who, projectName, project) {
    if (who.tokenProjects && !who.tokenProjects.includes(projectName))
        return false;
    if (!project)
        return true;
    return who.admin || project.owners.includes(who.user) || project.maintainers.includes(who.user);
}
/** Owner-only actions (adding maintainers). */
export function mayOwn(who, projectName, project) {
    if (who.tokenProjects && !who.tokenProjects.includes(projectName))
        return false;
    return who.admin || project.owners.includes(who.user);
}
