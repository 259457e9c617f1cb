/**
 * The policy records in PostgreSQL (`policy_exemptions`, `policy_collisions`, and the counter
 * `policy_generation`, bumped with every exemption change), read from an in-memory copy that the replica
 * reloads whenever a write changed the scope `policy`.
 */
import { canonicalVersion } from '../../model/versions.js';
import type { CollisionRecord, ExemptionRecord, PolicyStore } from '../policy-store.js';
import { type Queryable, select } from './database.js';
import type { ReplicaPart } from './replica.js';
import type { RevisionWriter } from './revision-writer.js';

const SCOPE = 'policy';
const BUMP_GENERATION = "UPDATE counters SET value = value + 1 WHERE name = 'policy_generation'";

interface PolicyState {
  exemptions: Map<string, ExemptionRecord>;
  collisions: Map<string, CollisionRecord>;
  generation: number;
}

const exemptionKey = (project: string, version: string) => `${project}\u0000${canonicalVersion(version)}`;
const collisionKey = (project: string, upstream: string) => `${project}\u0000${upstream}`;
const orNull = (v: unknown) => (v === null || v === undefined ? null : String(v));

export class PgPolicyStore implements PolicyStore, ReplicaPart {
  private state: PolicyState = { exemptions: new Map(), collisions: new Map(), generation: 0 };
  private writer: RevisionWriter | undefined;

  /** Connects the store to its database (open-postgres.ts does it before the replica starts). */
  attach(writer: RevisionWriter): void {
    this.writer = writer;
  }

  async load(sql: Queryable, scopes: Set<string> | null): Promise<() => void> {
    if (scopes !== null && !scopes.has(SCOPE)) return () => {};
    const exemptions = await select(sql, 'SELECT * FROM policy_exemptions ORDER BY project COLLATE "C", version_key COLLATE "C"');
    const collisions = await select(sql, 'SELECT * FROM policy_collisions ORDER BY project COLLATE "C", upstream COLLATE "C"');
    const [generation] = await select(sql, "SELECT value FROM counters WHERE name = 'policy_generation'");
    const state: PolicyState = {
      exemptions: new Map(
        exemptions.map((r) => [
          `${r.project}\u0000${r.version_key}`,
          Object.freeze({ project: String(r.project), version: String(r.version), reason: orNull(r.reason), by: String(r.by_user), at: String(r.at) }),
        ]),
      ),
      collisions: new Map(
        collisions.map((r) => [
          collisionKey(String(r.project), String(r.upstream)),
          Object.freeze({ project: String(r.project), upstream: String(r.upstream), firstSeen: String(r.first_seen), lastSeen: String(r.last_seen) }),
        ]),
      ),
      generation: Number(generation?.value ?? 0),
    };
    return () => {
      this.state = state;
    };
  }

  private get write(): RevisionWriter['write'] {
    if (!this.writer) throw new Error('the PostgreSQL policy store is not attached to a database');
    return this.writer.write.bind(this.writer);
  }

  async getExemption(project: string, version: string): Promise<ExemptionRecord | undefined> {
    return this.state.exemptions.get(exemptionKey(project, version));
  }

  putExemption(record: ExemptionRecord): Promise<void> {
    return this.write('put-exemption', async (tx) => {
      await tx.query(
        'INSERT INTO policy_exemptions (project, version_key, version, reason, by_user, at) VALUES ($1, $2, $3, $4, $5, $6) ' +
          'ON CONFLICT (project, version_key) DO UPDATE SET version = excluded.version, reason = excluded.reason, by_user = excluded.by_user, at = excluded.at',
        [record.project, canonicalVersion(record.version), record.version, record.reason, record.by, record.at],
      );
      await tx.query(BUMP_GENERATION);
      return { result: undefined, scopes: [SCOPE] };
    });
  }

  deleteExemption(project: string, version: string): Promise<boolean> {
    return this.write('delete-exemption', async (tx) => {
      const removed = await select(tx, 'DELETE FROM policy_exemptions WHERE project = $1 AND version_key = $2 RETURNING 1', [
        project,
        canonicalVersion(version),
      ]);
      if (removed.length === 0) return { result: false, scopes: [] };
      await tx.query(BUMP_GENERATION);
      return { result: true, scopes: [SCOPE] };
    });
  }

  async exemptions(): Promise<ExemptionRecord[]> {
    return [...this.state.exemptions.values()];
  }

  generation(): number {
    return this.state.generation;
  }

  async getCollision(project: string, upstream: string): Promise<CollisionRecord | undefined> {
    return this.state.collisions.get(collisionKey(project, upstream));
  }

  putCollision(record: CollisionRecord): Promise<void> {
    return this.write('put-collision', async (tx) => {
      await tx.query(
        'INSERT INTO policy_collisions (project, upstream, first_seen, last_seen) VALUES ($1, $2, $3, $4) ' +
          'ON CONFLICT (project, upstream) DO UPDATE SET first_seen = excluded.first_seen, last_seen = excluded.last_seen',
        [record.project, record.upstream, record.firstSeen, record.lastSeen],
      );
      return { result: undefined, scopes: [SCOPE] };
    });
  }

  async collisions(): Promise<CollisionRecord[]> {
    return [...this.state.collisions.values()];
  }
}
