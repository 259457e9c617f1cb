/**
 * What the supply-chain policy keeps: break-glass exemptions from the release cooldown (who, when, why)
 * and the upstream projects seen with the name of a private project. Reads are async and see other
 * processes' writes (the CLI adds exemptions while the server runs); writes resolve once durable.
 */

export interface ExemptionRecord {
  /** Normalized project name. */
  project: string;
  /** The version as given; matching uses its canonical form. */
  version: string;
  reason: string | null;
  by: string;
  /** ISO 8601 UTC. */
  at: string;
}

export interface CollisionRecord {
  /** Normalized name of the private project. */
  project: string;
  /** The upstream that lists a project of that name. */
  upstream: string;
  firstSeen: string;
  lastSeen: string;
}

export interface PolicyStore {
  getExemption(project: string, version: string): Promise<ExemptionRecord | undefined>;
  putExemption(record: ExemptionRecord): Promise<void>;
  /** False when there was no such exemption. */
  deleteExemption(project: string, version: string): Promise<boolean>;
  exemptions(): Promise<ExemptionRecord[]>;
  /** A number that changes whenever an exemption is added or revoked, by this process or another (synchronous: kept in memory). */
  generation(): number;
  getCollision(project: string, upstream: string): Promise<CollisionRecord | undefined>;
  putCollision(record: CollisionRecord): Promise<void>;
  collisions(): Promise<CollisionRecord[]>;
}
