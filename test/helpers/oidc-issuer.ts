/**
 * A small OIDC issuer of the tests' own on loopback: a discovery document, a JWK Set (RS256 and ES256 keys the
 * test makes) and tokens signed with them, as GitHub Actions or GitLab issue them. It counts the requests it
 * gets, so a test can tell whether larder asked it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
export type SigningKey = { kid: string; alg: 'RS256' | 'ES256'; privateKey: PrivateKey; jwk: JWK };

export interface TestIssuer {
  /** The issuer URL (`iss`): http://127.0.0.1:PORT */
  url: string;
  /** Requests for the discovery document and for the key set so far. */
  requests: { discovery: number; jwks: number };
  /** Makes a key and, unless `publish` is false, lists it in the served key set. */
  addKey(alg: 'RS256' | 'ES256', publish?: boolean): Promise<SigningKey>;
  /** Lists a key made with `publish` false in the served key set (a rotation). */
  publish(key: SigningKey): void;
  /** The served key set. */
  jwks(): { keys: JWK[] };
  /** A token signed with `key` (default: the first), with `iss`, `iat`, `exp` (+5 min) and a fresh `jti` filled in from `now`. */
  sign(claims: JWTPayload, options: { now: number; key?: SigningKey; omit?: string[] }): Promise<string>;
  close(): Promise<void>;
}

export async function startIssuer(): Promise<TestIssuer> {
  const keys: SigningKey[] = [];
  const served: JWK[] = [];
  const requests = { discovery: 0, jwks: 0 };
  let url = '';
  let counter = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration') {
      requests.discovery += 1;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/keys`, id_token_signing_alg_values_supported: ['RS256', 'ES256'] }));
    } else if (req.url === '/keys') {
      requests.jwks += 1;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: served }));
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer: TestIssuer = {
    url,
    requests,
    async addKey(alg, publish = true) {
      const pair = await generateKeyPair(alg, { extractable: true });
      const kid = `key-${keys.length + 1}`;
      const jwk = { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' };
      const key = { kid, alg, privateKey: pair.privateKey, jwk };
      keys.push(key);
      if (publish) served.push(jwk);
      return key;
    },
    publish: (key) => void served.push(key.jwk),
    jwks: () => ({ keys: [...served] }),
    async sign(claims, { now, key = keys[0]!, omit = [] }) {
      const seconds = Math.floor(now / 1000);
      counter += 1;
      const payload: JWTPayload = { iss: url, iat: seconds, nbf: seconds, exp: seconds + 300, jti: `jti-${counter}-${seconds}`, ...claims };
      for (const name of omit) delete payload[name];
      return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return issuer;
}

/** The claims GitHub Actions puts in its tokens, for the repository `repo` and the workflow file `workflow`. */
export function githubClaims(repo: string, workflow = 'release.yml', ref = 'refs/heads/main'): JWTPayload {
  return {
    aud: 'larder',
    sub: `repo:${repo}:ref:${ref}`,
    repository: repo,
    repository_owner: repo.split('/')[0],
    ref,
    workflow_ref: `${repo}/.github/workflows/${workflow}@${ref}`,
    job_workflow_ref: `${repo}/.github/workflows/${workflow}@${ref}`,
    sha: 'f'.repeat(40),
    event_name: 'push',
  };
}
