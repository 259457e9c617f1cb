/**
 * The policy records in PostgreSQL (`policy_exemptions`, `policy_collisions`), read with queries.
 * `generation()` is this node's counter of exemption changes: bumped by its own writes, by the other
 * nodes' (their notification names the scope `policy`) and whenever the node may have missed one (its
 * LISTEN connection came back), so that what was decided on the exemptions is decided again.
 */
import { canonicalVersion } from '../../model/versions.js';
import type { CollisionRecord, ExemptionRecord, PolicyStore } from '../policy-store.js';
import type { ChangeWriter } from './change-writer.js';
import { select } from './database.js';
import { collisionOf, collisionRow, exemptionOf, exemptionRow, upsert } from './rows.js';

const SCOPE = 'policy';

export class PgPolicyStore implements PolicyStore {
  private changes = 0;

  constructor(private readonly writer: ChangeWriter) {
    writer.feed.subscribe((scopes) => {
      if (scopes === null || scopes.includes(SCOPE)) this.changes += 1;
    });
  }

  private read<T>(operation: string, text: string, values: unknown[], of: (row: Record<string, unknown>) => T): Promise<T[]> {
    return this.writer.db.run(operation, async () => (await select(this.writer.db.pool, text, values)).map(of));
  }

  async getExemption(project: string, version: string): Promise<ExemptionRecord | undefined> {
    const text = 'SELECT * FROM policy_exemptions WHERE project = $1 AND version_key = $2';
    return (await this.read('get-exemption', text, [project, canonicalVersion(version)], exemptionOf))[0];
  }

  putExemption(record: ExemptionRecord): Promise<void> {
    return this.writer.write('put-exemption', async (tx) => {
      await upsert(tx, exemptionRow(record, canonicalVersion(record.version)));
      return { result: undefined, scopes: [SCOPE] };
    });
  }

  deleteExemption(project: string, version: string): Promise<boolean> {
    return this.writer.write('delete-exemption', async (tx) => {
      const removed = await select(tx, 'DELETE FROM policy_exemptions WHERE project = $1 AND version_key = $2 RETURNING 1', [
        project,
        canonicalVersion(version),
      ]);
      return removed.length === 0 ? { result: false, scopes: [] } : { result: true, scopes: [SCOPE] };
    });
  }

  exemptions(): Promise<ExemptionRecord[]> {
    return this.read('list-exemptions', 'SELECT * FROM policy_exemptions ORDER BY project COLLATE "C", version_key COLLATE "C"', [], exemptionOf);
  }

  generation(): number {
    return this.changes;
  }

  async getCollision(project: string, upstream: string): Promise<CollisionRecord | undefined> {
    const text = 'SELECT * FROM policy_collisions WHERE project = $1 AND upstream = $2';
    return (await this.read('get-collision', text, [project, upstream], collisionOf))[0];
  }

  putCollision(record: CollisionRecord): Promise<void> {
    return this.writer.write('put-collision', async (tx) => {
      await upsert(tx, collisionRow(record));
      return { result: undefined, scopes: [] };
    });
  }

  collisions(): Promise<CollisionRecord[]> {
    return this.read('list-collisions', 'SELECT * FROM policy_collisions ORDER BY project COLLATE "C", upstream COLLATE "C"', [], collisionOf);
  }
}
