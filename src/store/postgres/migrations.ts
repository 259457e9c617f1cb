/**
 * The PostgreSQL schema as a versioned list of steps, applied at open in one transaction that holds an
 * advisory lock, so that nodes starting at once apply each step exactly once; `schema_migrations` records
 * the versions applied. Times are kept as the ISO strings the records carry (what is written is read back).
 */
import type { PgDatabase } from './database.js';

/** Key of the transaction-scoped advisory lock taken while migrating ('larder' + 1). */
const MIGRATION_LOCK = 0x6c61726465720001n;

export interface Migration {
  version: number;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE projects (
        name text PRIMARY KEY,
        display_name text NOT NULL,
        created_at text NOT NULL,
        serial bigint NOT NULL,
        serial_base bigint,
        owners text[] NOT NULL,
        maintainers text[] NOT NULL
      );
      CREATE TABLE releases (
        project text NOT NULL,
        version text NOT NULL,
        metadata jsonb NOT NULL,
        created_at text NOT NULL,
        yanked boolean NOT NULL,
        yanked_reason text,
        PRIMARY KEY (project, version)
      );
      CREATE TABLE files (
        project text NOT NULL,
        filename text NOT NULL,
        version text NOT NULL,
        packagetype text NOT NULL,
        pyversion text NOT NULL,
        size bigint NOT NULL,
        sha256 text NOT NULL,
        md5 text NOT NULL,
        blake2b_256 text NOT NULL,
        upload_time text NOT NULL,
        requires_python text,
        comment text,
        metadata_sha256 text,
        signature_sha256 text,
        uploader text,
        PRIMARY KEY (project, filename)
      );
      CREATE TABLE deleted_files (
        project text NOT NULL,
        filename text NOT NULL,
        deleted_at text NOT NULL,
        PRIMARY KEY (project, filename)
      );
      CREATE TABLE users (
        name text PRIMARY KEY,
        password_hash text NOT NULL,
        admin boolean NOT NULL,
        created_at text NOT NULL
      );
      CREATE TABLE tokens (
        hash text PRIMARY KEY,
        id text NOT NULL UNIQUE,
        user_name text NOT NULL,
        projects text[],
        description text,
        created_at text NOT NULL
      );
      CREATE INDEX tokens_user ON tokens (user_name);
      CREATE TABLE allowed_names (
        name text PRIMARY KEY,
        by_user text,
        at text NOT NULL
      );
      CREATE TABLE changelog (
        serial bigint PRIMARY KEY,
        project text NOT NULL,
        version text,
        filename text,
        action text NOT NULL,
        user_name text,
        time text NOT NULL
      );
      CREATE TABLE counters (
        name text PRIMARY KEY,
        value bigint NOT NULL
      );
      INSERT INTO counters (name, value) VALUES ('revision', 0), ('serial', 0), ('policy_generation', 0);
      CREATE TABLE policy_exemptions (
        project text NOT NULL,
        version_key text NOT NULL,
        version text NOT NULL,
        reason text,
        by_user text NOT NULL,
        at text NOT NULL,
        PRIMARY KEY (project, version_key)
      );
      CREATE TABLE policy_collisions (
        project text NOT NULL,
        upstream text NOT NULL,
        first_seen text NOT NULL,
        last_seen text NOT NULL,
        PRIMARY KEY (project, upstream)
      );
      CREATE TABLE revisions (
        revision bigint PRIMARY KEY,
        scopes text[] NOT NULL,
        at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 2,
    sql: `
      CREATE TABLE cached_files (
        project text NOT NULL,
        filename text NOT NULL,
        variant text NOT NULL,
        sha256 text NOT NULL,
        size bigint NOT NULL,
        fetched_at bigint NOT NULL,
        last_access bigint NOT NULL,
        PRIMARY KEY (project, filename, variant)
      );
    `,
  },
  {
    version: 3,
    sql: `
      CREATE TABLE ended_sessions (
        id text PRIMARY KEY,
        until bigint NOT NULL
      );
    `,
  },
  {
    // json keeps the text as written: jsonb reorders keys, and a release's project_urls are shown in their order.
    version: 4,
    sql: 'ALTER TABLE releases ALTER COLUMN metadata TYPE json USING metadata::json;',
  },
  {
    version: 5,
    sql: `
      CREATE TABLE mirror_sets (
        name text PRIMARY KEY,
        record json NOT NULL
      );
    `,
  },
  {
    // NULL = the token never expires (every token made before expiry existed).
    version: 6,
    sql: 'ALTER TABLE tokens ADD COLUMN expires_at text;',
  },
  {
    // Reads are queries now (no per-node copy): serials come from a sequence, the revisions and counters
    // that kept the copies current go, and every listing has an index in the order it is read ("C").
    version: 7,
    sql: `
      CREATE SEQUENCE serials AS bigint;
      SELECT setval('serials', value) FROM counters WHERE name = 'serial' AND value > 0;
      DROP TABLE revisions;
      DROP TABLE counters;
      CREATE INDEX projects_by_name ON projects (name COLLATE "C");
      CREATE INDEX releases_by_name ON releases (project COLLATE "C", version COLLATE "C");
      CREATE INDEX files_by_name ON files (project COLLATE "C", filename COLLATE "C");
      CREATE INDEX deleted_files_by_name ON deleted_files (project COLLATE "C", filename COLLATE "C");
      CREATE INDEX cached_files_by_name ON cached_files (project COLLATE "C", filename COLLATE "C", variant COLLATE "C");
      CREATE INDEX ended_sessions_by_end ON ended_sessions (until);
    `,
  },
  {
    // The imported security advisories (one record per advisory and project) and when the set was imported.
    version: 8,
    sql: `
      CREATE TABLE advisories (
        project text NOT NULL,
        id text NOT NULL,
        record json NOT NULL,
        PRIMARY KEY (project, id)
      );
      CREATE TABLE advisory_imports (
        singleton boolean PRIMARY KEY CHECK (singleton),
        record json NOT NULL
      );
    `,
  },
  {
    // The download audit (issue 29): times in ms; every node inserts, any node prunes by time.
    version: 9,
    sql: `
      CREATE TABLE audit_downloads (
        id bigserial PRIMARY KEY,
        at bigint NOT NULL,
        client text NOT NULL,
        user_name text NOT NULL,
        token text,
        project text NOT NULL,
        version text,
        filename text NOT NULL,
        sha256 text
      );
      CREATE INDEX audit_downloads_by_time ON audit_downloads (at);
      CREATE INDEX audit_downloads_by_project ON audit_downloads (project, at);
    `,
  },
  {
    // PEP 792 project status of a private project; NULL = active (every project made before statuses existed).
    version: 10,
    sql: 'ALTER TABLE projects ADD COLUMN status text, ADD COLUMN status_reason text;',
  },
  {
    // Trusted publishing (issue 30): publishers per project, the OIDC tokens exchanged (until they expire),
    // the upload tokens minted, and who published a file.
    version: 11,
    sql: `
      CREATE TABLE trusted_publishers (
        id text PRIMARY KEY,
        project text NOT NULL,
        issuer text NOT NULL,
        claims jsonb NOT NULL,
        jwks jsonb,
        created_by text,
        created_at text NOT NULL
      );
      CREATE INDEX trusted_publishers_by_project ON trusted_publishers (project COLLATE "C", id COLLATE "C");
      CREATE INDEX trusted_publishers_by_issuer ON trusted_publishers (issuer);
      CREATE TABLE oidc_used_jtis (
        issuer text NOT NULL,
        jti text NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (issuer, jti)
      );
      CREATE INDEX oidc_used_jtis_by_expiry ON oidc_used_jtis (expires_at);
      CREATE TABLE minted_tokens (
        hash text PRIMARY KEY,
        id text NOT NULL,
        projects text[] NOT NULL,
        publisher jsonb NOT NULL,
        created_at text NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX minted_tokens_by_expiry ON minted_tokens (expires_at);
      ALTER TABLE files ADD COLUMN publisher jsonb;
    `,
  },
];

/** Applies the steps this database lacks; refuses a database migrated by a newer larder. */
export async function migrate(db: PgDatabase, steps: Migration[] = MIGRATIONS): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK.toString()]);
    await tx.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await tx.query('SELECT version FROM schema_migrations')).rows.map((row) => Number(row.version)));
    const known = Math.max(0, ...steps.map((step) => step.version));
    const newer = [...done].filter((version) => version > known);
    if (newer.length > 0)
      throw new Error(`the database's schema is at version ${Math.max(...newer)}, newer than this larder knows (${known}): run a newer larder`);
    const applied: number[] = [];
    for (const step of steps) {
      if (done.has(step.version)) continue;
      await tx.query(step.sql);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [step.version]);
      applied.push(step.version);
    }
    return applied;
  });
}
