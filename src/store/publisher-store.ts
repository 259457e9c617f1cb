/**
 * What trusted publishing keeps: the publishers configured per project (an OIDC issuer and the claims its
 * tokens must carry), the `jti` of every token already exchanged (until it expires, so that each mints
 * once), and the short-lived upload tokens minted (by the hash of the token). Reads see other processes'
 * and nodes' writes at once (nothing is cached), so `larder publisher add/remove` reaches a running server.
 */
import type { PublisherStamp } from './records.js';

export interface PublisherRecord {
  /** Short public id (`larder publisher remove PROJECT ID`). */
  id: string;
  /** Normalized project name. */
  project: string;
  /** The issuer URL, as tokens name it in `iss`. */
  issuer: string;
  /** Claims a token must carry with exactly these (string) values. */
  claims: Record<string, string>;
  /** A JWK Set pinned for the issuer (`--jwks FILE`); null = keys from the issuer's discovery document. */
  jwks: { keys: Record<string, unknown>[] } | null;
  createdBy: string | null;
  createdAt: string;
}

/** An upload token minted from an OIDC token: upload-only, limited to `projects`, until `expiresAt` (ms). */
export interface MintedTokenRecord {
  /** sha256 hex of the token; the token itself is never stored. */
  hash: string;
  /** Short public id: the first 12 hex digits of the hash. */
  id: string;
  /** Normalized names of the projects whose publishers the OIDC token matched. */
  projects: string[];
  publisher: PublisherStamp;
  createdAt: string;
  expiresAt: number;
}

export interface PublisherStore {
  addPublisher(record: PublisherRecord): Promise<void>;
  /** False when the project has no publisher of that id. */
  removePublisher(project: string, id: string): Promise<boolean>;
  /** The publishers of `project`, or of every project; by project, then id. */
  publishers(project?: string): Promise<PublisherRecord[]>;
  /** The publishers whose issuer is `issuer`. */
  publishersOf(issuer: string): Promise<PublisherRecord[]>;
  /**
   * Remembers the token `jti` of `issuer` until `expiresAt` (ms); false when it is remembered already (the
   * token was exchanged before). Forgets those that expired by `now` (ms). Atomic across nodes.
   */
  useJti(issuer: string, jti: string, expiresAt: number, now: number): Promise<boolean>;
  /** Stores a minted token, and forgets those that expired by `now` (ms). */
  putMintedToken(record: MintedTokenRecord, now: number): Promise<void>;
  getMintedToken(hash: string): Promise<MintedTokenRecord | undefined>;
}
