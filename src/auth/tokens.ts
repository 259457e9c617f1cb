/** API tokens: `larder-` + 32 random bytes (base64url). Only the sha256 of a token is stored. */
import { createHash, randomBytes } from 'node:crypto';
import type { TokenRecord } from '../store/records.js';

export const TOKEN_PREFIX = 'larder-';
/** Upload tokens minted by trusted publishing (oidc/token-exchange.ts). */
export const MINTED_TOKEN_PREFIX = 'larder-oidc-';

export interface NewTokenOptions {
  /** Normalized project names the token is limited to; null = every project the user may upload to. */
  projects: string[] | null;
  description: string | null;
  /** null = never expires. */
  expiresAt: Date | null;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function newToken(user: string, options: NewTokenOptions, now: Date): { token: string; record: TokenRecord } {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const hash = hashToken(token);
  const { projects, description, expiresAt } = options;
  const record: TokenRecord = { id: hash.slice(0, 12), hash, user, projects, description, createdAt: now.toISOString() };
  if (expiresAt) record.expiresAt = expiresAt.toISOString();
  return { token, record };
}

/** Has the token stopped working at `now` (ms)? */
export function isExpired(record: TokenRecord, now: number): boolean {
  return record.expiresAt !== undefined && Date.parse(record.expiresAt) <= now;
}
