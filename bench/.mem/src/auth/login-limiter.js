/**
 * Failed logins per client address and per user name over a sliding window (one minute). Once `limit`
 * failures fall inside the window, further attempts are refused with 429 until the oldest of them is a
 * window old. Memory is bounded: each side keeps at most `limit` times per key in an LRU cache.
 */
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { LRUCache } from 'lru-cache';
import { LarderError } from '../base/errors.js';
export const LOGIN_WINDOW_MS = 60_000;
/** The times of the latest failures of each key, oldest first; arrays are replaced, never changed. */
class FailureLog {
    limit;
    windowMs;
    times;
    constructor(limit, windowMs, 
    /** Each key weighs its number of failures plus 4, so 10,000 keys that failed once fill it (by default). */
    maxWeight) {
        this.limit = limit;
        this.windowMs = windowMs;
        this.times = new LRUCache({ maxSize: Math.max(maxWeight, 4 * (limit + 4)), sizeCalculation: (t) => t.length + 4 });
    }
    /** Milliseconds until `key` may try again; 0 when it may now. */
    waitMs(key, now) {
        const recent = this.recent(key, now);
        return recent.length >= this.limit ? recent[recent.length - this.limit] + this.windowMs - now : 0;
    }
    add(key, now) {
        this.times.set(key, [...this.recent(key, now), now].slice(-this.limit));
    }
    remove(key, time) {
        const times = this.times.peek(key);
        const at = times?.lastIndexOf(time) ?? -1;
        if (at >= 0)
            this.times.set(key, times.filter((_, i) => i !== at));
    }
    recent(key, now) {
        const times = this.times.get(key) ?? [];
        return times.filter((t) => t > now - this.windowMs);
    }
}
/**
 * IPv6 clients are counted per /64 (a single host usually holds a whole /64); IPv4, also IPv4-mapped, per address.
 */
export function addressKey(address) {
    const bare = address.split('%')[0].toLowerCase();
    if (!isIPv6(bare) || bare.startsWith('::ffff:'))
        return bare;
    const [head = '', tail] = bare.split('::');
    const groups = head ? head.split(':') : [];
    if (tail !== undefined) {
        const rest = tail ? tail.split(':') : [];
        groups.push(...Array(Math.max(0, 8 - groups.length - rest.length)).fill('0'), ...rest);
    }
    return `${groups
        .slice(0, 4)
        .map((g) => g.padStart(4, '0'))
        .join(':')}::/64`;
}
/** User names are short; anything longer is an attack on memory, kept as its digest. */
const userKey = (user) => (user.length <= 64 ? user : `sha256:${createHash('sha256').update(user).digest('hex')}`);
export class LoginLimiter {
    limit;
    clock;
    windowMs;
    byAddress;
    byUser;
    constructor(limit, clock, options = {}) {
        this.limit = limit;
        this.clock = clock;
        this.windowMs = options.windowMs ?? LOGIN_WINDOW_MS;
        const maxWeight = options.maxWeight ?? 40_000;
        this.byAddress = new FailureLog(limit, this.windowMs, maxWeight);
        this.byUser = new FailureLog(limit, this.windowMs, maxWeight);
    }
    /** Throws 429 with Retry-After when the address or the user name has used up its failures. */
    check(address, user) {
        const now = this.clock.now();
        const addressWait = this.byAddress.waitMs(addressKey(address), now);
        const userWait = user === null ? 0 : this.byUser.waitMs(userKey(user), now);
        const wait = Math.max(addressWait, userWait);
        if (wait <= 0)
            return;
        const seconds = Math.max(1, Math.ceil(wait / 1000));
        const who = addressWait >= userWait ? 'from this address' : 'for this user name';
        throw new LarderError('too_many_failed_logins', `Too many failed logins ${who}; try again in ${seconds} s.`, {
            'Retry-After': String(seconds),
        });
    }
    fail(address, user) {
        const attempt = { time: this.clock.now(), addressKey: addressKey(address), userKey: user === null ? null : userKey(user) };
        this.byAddress.add(attempt.addressKey, attempt.time);
        if (attempt.userKey !== null)
            this.byUser.add(attempt.userKey, attempt.time);
        return attempt;
    }
    forgive(attempt) {
        this.byAddress.remove(attempt.addressKey, attempt.time);
        if (attempt.userKey !== null)
            this.byUser.remove(attempt.userKey, attempt.time);
    }
}
