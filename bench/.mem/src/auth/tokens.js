/** API tokens: `larder-` + 32 random bytes (base64url). Only the sha256 of a token is stored. */
import { createHash, randomBytes } from 'node:crypto';
export const TOKEN_PREFIX = 'larder-';
export function hashToken(token) {
    return createHash('sha256').update(token).digest('hex');
}
export function newToken(user, projects, description, now) {
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const hash = hashToken(token);
    return {
        token,
        record: { id: hash.slice(0, 12), hash, user, projects, description, createdAt: now.toISOString() },
    };
}
