/**
 * The stored password form `scrypt$N$r$p$salt$hash` (base64): making, reading and comparing it.
 * The scrypt itself runs in a PasswordHasher's worker thread, never here.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
export const PARAMS = Object.freeze({ N: 16384, r: 8, p: 1 });
export const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
export const newSalt = () => randomBytes(SALT_LENGTH);
export function formatHash({ params, salt, key }) {
    return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}
/** null when `stored` is not in the scrypt form. */
export function parseHash(stored) {
    const [scheme, n, r, p, salt, hash] = stored.split('$');
    if (scheme !== 'scrypt' || !salt || !hash)
        return null;
    const key = Buffer.from(hash, 'base64');
    if (key.length === 0)
        return null;
    return { params: { N: Number(n), r: Number(r), p: Number(p) }, salt: Buffer.from(salt, 'base64'), key };
}
export function keysEqual(a, b) {
    return a.length === b.length && timingSafeEqual(a, b);
}
/**
 * A hash no password matches (random salt and key) with the real parameters: checking a password for a
 * user who does not exist against it costs what checking a real user's password costs.
 */
export function dummyHash() {
    return formatHash({ params: PARAMS, salt: newSalt(), key: randomBytes(KEY_LENGTH) });
}
