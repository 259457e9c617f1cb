/**
 * Failed logins over a sliding window (one minute), counted so that nobody can lock another person out:
 *
 * - per (user name, address): `limit` failures for one name from one address, then that address is refused
 *   for that name (429) until the oldest of them is a window old;
 * - per address: `ADDRESS_LIMIT_FACTOR × limit` failures over all names (and tokens), then the address is
 *   refused for everything (one address trying many names; an office behind one NAT still has room);
 * - per user name, never on its own: once a name has `limit` failures from anywhere (a guess spread over
 *   many addresses), an address that has itself failed for that name within the window is refused for it.
 *   An address with no failure for the name is never refused because of other addresses' failures, so the
 *   real user with the right password is let in while someone else keeps guessing.
 *
 * A success takes back the failures of that (name, address) pair, from the pair's count and the name's, never
 * from the address's count (or a guesser with an account of their own could reset it between guesses). Memory is bounded: each count
 * keeps at most its limit of times per key in an LRU cache.
 */
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../base/clock.js';
import { LarderError } from '../base/errors.js';

export const LOGIN_WINDOW_MS = 60_000;
/** An address may fail this many times `limit` a window over all user names. */
export const ADDRESS_LIMIT_FACTOR = 3;

/** A failure counted while its check runs; `forgive` takes it back if the check succeeds. */
export interface Attempt {
  readonly time: number;
  readonly addressKey: string;
  /** null for a token or no credentials: counted for the address only. */
  readonly userKey: string | null;
}

/** The times of the latest failures of each key, oldest first; arrays are replaced, never changed. */
class FailureLog {
  private readonly times: LRUCache<string, readonly number[]>;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    /** Each key weighs its number of failures plus 4, so 10,000 keys that failed once fill it (by default). */
    maxWeight: number,
  ) {
    this.times = new LRUCache({ maxSize: Math.max(maxWeight, 4 * (limit + 4)), sizeCalculation: (t) => t.length + 4 });
  }

  /** Milliseconds until `key` has fewer than `limit` failures in the window; 0 when it has now. */
  waitMs(key: string, now: number, limit = this.limit): number {
    const recent = this.recent(key, now);
    return recent.length >= limit ? recent[recent.length - limit]! + this.windowMs - now : 0;
  }

  /** Adds a failure at `time` (at most a moment ago: a check that took a while is counted when it began). */
  add(key: string, time: number, now = time): void {
    this.times.set(key, [...this.recent(key, now), time].sort((a, b) => a - b).slice(-this.limit));
  }

  remove(key: string, time: number): void {
    const times = this.times.peek(key);
    const at = times?.lastIndexOf(time) ?? -1;
    if (at >= 0)
      this.times.set(
        key,
        times!.filter((_, i) => i !== at),
      );
  }

  /** Forgets `key`; returns the times it had. */
  take(key: string): readonly number[] {
    const times = this.times.peek(key) ?? [];
    this.times.delete(key);
    return times;
  }

  private recent(key: string, now: number): readonly number[] {
    const times = this.times.get(key) ?? [];
    return times.filter((t) => t > now - this.windowMs);
  }
}

/**
 * IPv6 clients are counted per /64 (a single host usually holds a whole /64); IPv4, also IPv4-mapped, per address.
 */
export function addressKey(address: string): string {
  const bare = address.split('%')[0]!.toLowerCase();
  if (!isIPv6(bare) || bare.startsWith('::ffff:')) return bare;
  const [head = '', tail] = bare.split('::');
  const groups = head ? head.split(':') : [];
  if (tail !== undefined) {
    const rest = tail ? tail.split(':') : [];
    groups.push(...Array<string>(Math.max(0, 8 - groups.length - rest.length)).fill('0'), ...rest);
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.padStart(4, '0'))
    .join(':')}::/64`;
}

/** User names are short; anything longer is an attack on memory, kept as its digest. */
const userKey = (user: string) => (user.length <= 64 ? user : `sha256:${createHash('sha256').update(user).digest('hex')}`);
/** Neither part holds a NUL (addresses are IP literals; long names are digests hex). */
const pairKey = (user: string, address: string) => `${user}\0${address}`;

export interface LoginLimiterOptions {
  windowMs?: number;
  /** Bound on each count's memory, in weight units (see FailureLog). Default 40,000. */
  maxWeight?: number;
}

/** Why an attempt is refused, the longest wait first; the message names the rule. */
const REFUSALS = {
  address: 'Too many failed logins from this address',
  pair: 'Too many failed logins for this user name from this address',
  guessed: 'Too many failed logins for this user name, one of them from this address',
} as const;

export class LoginLimiter {
  readonly addressLimit: number;
  private readonly windowMs: number;
  private readonly byAddress: FailureLog;
  private readonly byPair: FailureLog;
  private readonly byUser: FailureLog;

  constructor(
    /** Failures a window for one user name from one address. */
    readonly limit: number,
    private readonly clock: Clock,
    options: LoginLimiterOptions = {},
  ) {
    this.windowMs = options.windowMs ?? LOGIN_WINDOW_MS;
    this.addressLimit = ADDRESS_LIMIT_FACTOR * limit;
    const maxWeight = options.maxWeight ?? 40_000;
    this.byAddress = new FailureLog(this.addressLimit, this.windowMs, maxWeight);
    this.byPair = new FailureLog(limit, this.windowMs, maxWeight);
    this.byUser = new FailureLog(limit, this.windowMs, maxWeight);
  }

  /** Throws 429 with Retry-After when the address, or this address for this user name, must wait. */
  check(address: string, user: string | null): void {
    const now = this.clock.now();
    const a = addressKey(address);
    const waits: [keyof typeof REFUSALS, number][] = [['address', this.byAddress.waitMs(a, now)]];
    if (user !== null) {
      const u = userKey(user);
      const p = pairKey(u, a);
      waits.push(['pair', this.byPair.waitMs(p, now)]);
      // Under a spread-out guess, an address that failed for the name waits until its own latest failure is a
      // window old (or the spread-out failures fall below the limit, if sooner): one guess a window per address.
      const guessed = this.byUser.waitMs(u, now);
      if (guessed > 0) waits.push(['guessed', Math.min(guessed, this.byPair.waitMs(p, now, 1))]);
    }
    const [rule, wait] = waits.reduce((longest, w) => (w[1] > longest[1] ? w : longest));
    if (wait <= 0) return;
    const seconds = Math.max(1, Math.ceil(wait / 1000));
    throw new LarderError('too_many_failed_logins', `${REFUSALS[rule]}; try again in ${seconds} s.`, { 'Retry-After': String(seconds) });
  }

  /**
   * Counts a failure for the address and the (name, address) pair before a check runs, so concurrent guesses
   * cannot get past the limits; `confirm` it when the check fails, `forgive` it when it succeeds.
   */
  begin(address: string, user: string | null): Attempt {
    const attempt = { time: this.clock.now(), addressKey: addressKey(address), userKey: user === null ? null : userKey(user) };
    this.byAddress.add(attempt.addressKey, attempt.time);
    if (attempt.userKey !== null) this.byPair.add(pairKey(attempt.userKey, attempt.addressKey), attempt.time);
    return attempt;
  }

  /**
   * The check failed: it counts for the name too. Only now, since the name's count is never checked first
   * (its log keeps the latest `limit` times: counting checks under way would push real failures out).
   */
  confirm(attempt: Attempt): void {
    if (attempt.userKey !== null) this.byUser.add(attempt.userKey, attempt.time, this.clock.now());
  }

  /** A failure known at once (a wrong token, no credentials, a password a shared check found wrong). */
  fail(address: string, user: string | null): Attempt {
    const attempt = this.begin(address, user);
    this.confirm(attempt);
    return attempt;
  }

  /** Takes back a failure counted by `begin` (the check succeeded, or could not be made). */
  forgive(attempt: Attempt): void {
    this.byAddress.remove(attempt.addressKey, attempt.time);
    if (attempt.userKey !== null) this.byPair.remove(pairKey(attempt.userKey, attempt.addressKey), attempt.time);
  }

  /** The right password for `user` from `address`: that pair's earlier failures no longer count, for the pair or the name. */
  succeeded(address: string, user: string): void {
    const u = userKey(user);
    for (const time of this.byPair.take(pairKey(u, addressKey(address)))) this.byUser.remove(u, time);
  }
}
