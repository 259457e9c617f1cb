/**
 * The trusted-publishing records in PostgreSQL (`trusted_publishers`, `oidc_used_jtis`, `minted_tokens`),
 * read with queries (no per-node copy), so a publisher added on one node or by the CLI counts at once on
 * every node. A token's `jti` is taken with an INSERT that the primary key decides between nodes.
 */
import type { MintedTokenRecord, PublisherRecord, PublisherStore } from '../publisher-store.js';
import type { PublisherStamp } from '../records.js';
import type { ChangeWriter } from './change-writer.js';
import { type Row, select } from './database.js';

function publisherOf(row: Row): PublisherRecord {
  return {
    id: String(row.id),
    project: String(row.project),
    issuer: String(row.issuer),
    claims: row.claims as Record<string, string>,
    jwks: (row.jwks as PublisherRecord['jwks']) ?? null,
    createdBy: row.created_by === null ? null : String(row.created_by),
    createdAt: String(row.created_at),
  };
}

function mintedOf(row: Row): MintedTokenRecord {
  return {
    hash: String(row.hash),
    id: String(row.id),
    projects: row.projects as string[],
    publisher: row.publisher as PublisherStamp,
    createdAt: String(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

export class PgPublisherStore implements PublisherStore {
  constructor(private readonly writer: ChangeWriter) {}

  private read<T>(operation: string, text: string, values: unknown[], of: (row: Row) => T): Promise<T[]> {
    return this.writer.db.run(operation, async () => (await select(this.writer.db.pool, text, values)).map(of));
  }

  addPublisher(p: PublisherRecord): Promise<void> {
    return this.writer.write('add-publisher', async (tx) => {
      await tx.query('INSERT INTO trusted_publishers (id, project, issuer, claims, jwks, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        p.id,
        p.project,
        p.issuer,
        JSON.stringify(p.claims),
        p.jwks === null ? null : JSON.stringify(p.jwks),
        p.createdBy,
        p.createdAt,
      ]);
      return { result: undefined, scopes: [] };
    });
  }

  removePublisher(project: string, id: string): Promise<boolean> {
    return this.writer.write('remove-publisher', async (tx) => {
      const removed = await select(tx, 'DELETE FROM trusted_publishers WHERE project = $1 AND id = $2 RETURNING 1', [project, id]);
      return { result: removed.length > 0, scopes: [] };
    });
  }

  publishers(project?: string): Promise<PublisherRecord[]> {
    const order = 'ORDER BY project COLLATE "C", id COLLATE "C"';
    if (project === undefined) return this.read('list-publishers', `SELECT * FROM trusted_publishers ${order}`, [], publisherOf);
    return this.read('list-publishers', `SELECT * FROM trusted_publishers WHERE project = $1 ${order}`, [project], publisherOf);
  }

  publishersOf(issuer: string): Promise<PublisherRecord[]> {
    const text = 'SELECT * FROM trusted_publishers WHERE issuer = $1 ORDER BY project COLLATE "C", id COLLATE "C"';
    return this.read('issuer-publishers', text, [issuer], publisherOf);
  }

  useJti(issuer: string, jti: string, expiresAt: number, now: number): Promise<boolean> {
    return this.writer.write('use-jti', async (tx) => {
      await tx.query('DELETE FROM oidc_used_jtis WHERE expires_at <= $1', [now]);
      const text = 'INSERT INTO oidc_used_jtis (issuer, jti, expires_at) VALUES ($1, $2, $3) ON CONFLICT (issuer, jti) DO NOTHING RETURNING 1';
      return { result: (await select(tx, text, [issuer, jti, expiresAt])).length > 0, scopes: [] };
    });
  }

  putMintedToken(t: MintedTokenRecord, now: number): Promise<void> {
    return this.writer.write('put-minted-token', async (tx) => {
      await tx.query('DELETE FROM minted_tokens WHERE expires_at <= $1', [now]);
      await tx.query('INSERT INTO minted_tokens (hash, id, projects, publisher, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        t.hash,
        t.id,
        t.projects,
        JSON.stringify(t.publisher),
        t.createdAt,
        t.expiresAt,
      ]);
      return { result: undefined, scopes: [] };
    });
  }

  async getMintedToken(hash: string): Promise<MintedTokenRecord | undefined> {
    return (await this.read('get-minted-token', 'SELECT * FROM minted_tokens WHERE hash = $1', [hash], mintedOf))[0];
  }
}
