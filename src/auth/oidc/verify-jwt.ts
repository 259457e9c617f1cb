/**
 * Verifies an OIDC token's signature and time claims with `jose`: RS256 or ES256 only (never `none` nor an
 * HMAC, whose "key" would be public), the issuer and audience exact, `iss`, `aud`, `exp` and `iat`
 * required, `exp`, `nbf` and `iat` held to 60 s of leeway. A key id the set lacks asks for the issuer's
 * keys again (IssuerKeys bounds how often).
 */
import type { JWTPayload } from 'jose';
import type { JsonWebKeySet } from './issuer-documents.js';

export const LEEWAY_SECONDS = 60;
export const ALGORITHMS = ['RS256', 'ES256'];

export type Verified = { ok: true; claims: JWTPayload } | { ok: false; description: string };

export interface VerifyOptions {
  issuer: string;
  audience: string;
  now: number;
  /** The keys to try; `stale` = the token names a key these lack (fetch again if allowed). */
  keys(stale: boolean): Promise<JsonWebKeySet>;
}

export async function verifyJwt(token: string, options: VerifyOptions): Promise<Verified> {
  const { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify } = await import('jose');
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    return { ok: false, description: 'malformed JWT header' };
  }
  if (typeof alg !== 'string' || !ALGORITHMS.includes(alg))
    return { ok: false, description: `the algorithm ${String(alg).slice(0, 20)} is not accepted (only ${ALGORITHMS.join(', ')})` };
  for (const stale of [false, true]) {
    let keys: JsonWebKeySet;
    try {
      keys = await options.keys(stale);
    } catch (err) {
      return { ok: false, description: `the issuer's keys could not be fetched: ${(err as Error).message}` };
    }
    try {
      const { payload } = await jwtVerify(token, createLocalJWKSet(keys as Parameters<typeof createLocalJWKSet>[0]), {
        algorithms: ALGORITHMS,
        issuer: options.issuer,
        audience: options.audience,
        clockTolerance: LEEWAY_SECONDS,
        currentDate: new Date(options.now),
        requiredClaims: ['iss', 'aud', 'exp', 'iat'],
      });
      // jose checks `iat` only against a maximum age; a token issued in the future is refused here.
      if ((payload.iat as number) > options.now / 1000 + LEEWAY_SECONDS)
        return { ok: false, description: '"iat" claim timestamp check failed (it is in the future)' };
      return { ok: true, claims: payload };
    } catch (err) {
      if (err instanceof errors.JWKSNoMatchingKey && !stale) continue;
      if (err instanceof errors.JOSEError) return { ok: false, description: err.message };
      return { ok: false, description: `invalid token (${(err as Error).message})` };
    }
  }
  return { ok: false, description: 'no key of the issuer matches the token' };
}
