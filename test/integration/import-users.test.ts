/**
 * `larder import` does not trust an archive with accounts: without --include-users its users and tokens
 * are left out (one line says so); with it every user is listed before anything is written, an archive's
 * administrator is an ordinary user unless --grant-admins, and a name that is another account here is not
 * merged, so the archive's `alice` token does not sign in as this directory's own `alice`. Archives whose
 * accounts are malformed are refused. The CLI runs in this process; the results are checked over HTTP
 * against a real server on the imported directory.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LARDER_VERSION } from '../../src/base/version.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import type { UserRecord } from '../../src/store/records.js';
import {
  encodeRecord,
  FORMAT,
  FORMAT_VERSION,
  HEADER_ENTRY,
  MANIFEST_ENTRY,
  recordsEntry,
  type DbName,
  type ExportHeader,
} from '../../src/transfer/archive-format.js';
import { ArchiveWriter } from '../../src/transfer/archive-writer.js';
import { buildWheel } from '../fixtures/dists.js';
import { type CliResult, runLarderCli } from '../helpers/cli.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { uploadForm } from '../helpers/upload-form.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const output = (r: CliResult) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

const NOT_IMPORTED =
  'the archive holds 3 users (1 of them an administrator) and 3 tokens; not imported (use --include-users to import them, and --grant-admins to keep administrators administrators)';
const ALICE_NOT_MERGED =
  "  user alice exists here as another account (another password hash): not merged; the local alice is kept and none of the archive's tokens for alice (1 token) is imported";
const CAROL_SAME = '  user carol is the same account here (same password hash): kept as it is here, with its 1 token';
const ROOT_ORDINARY =
  '  user root, an administrator in the archive, is new here: imported as an ordinary user (--grant-admins would keep it an administrator), with its 1 token';
const ROOT_ADMIN = '  user root, an administrator in the archive, is new here: imported as an administrator (--grant-admins), with its 1 token';

/** Answers of a server on an imported directory: who a credential signs in as, and whether as an administrator. */
async function signsIn(server: TestLarder, auth: string): Promise<boolean> {
  const res = await fetch(`${server.url}/api/projects/no-such-project`, { method: 'DELETE', headers: { Authorization: auth } });
  await res.arrayBuffer();
  assert.ok(res.status === 404 || res.status === 403, `${res.status} ${res.statusText}`);
  return res.status === 404;
}
async function isAdmin(server: TestLarder, auth: string): Promise<boolean> {
  const res = await fetch(`${server.url}/api/allowed-names`, {
    method: 'POST',
    headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'some-name' }),
  });
  await res.arrayBuffer();
  assert.ok(res.status === 200 || res.status === 403, `${res.status} ${res.statusText}`);
  return res.status === 200;
}
const token = (t: string) => basicAuth('__token__', t);

describe('import and the users of an archive', () => {
  const dir = suiteTempDir('larder-import-users-');
  let source: TestLarder;
  let archive: string;
  let carol: UserRecord;
  const tokens: Record<string, string> = {};
  const servers: TestLarder[] = [];

  /** A data directory with its own alice (another password), and whatever `setup` adds; no server left running. */
  const target = async (setup?: (t: TestLarder) => Promise<void>): Promise<string> => {
    const t = await startLarder();
    await t.addUser('alice', 'target-alice-password');
    await setup?.(t);
    await t.stop();
    return t.data;
  };
  const serve = async (data: string) => {
    const server = await startLarder({}, data);
    servers.push(server);
    return server;
  };

  before(async () => {
    source = await startLarder();
    await source.addUser('alice', 'source-alice-password');
    await source.addUser('carol', 'carol-password');
    await source.addUser('root', 'root-password', true);
    for (const name of ['alice', 'carol', 'root']) tokens[name] = await source.addToken(name);
    carol = (await source.larder.meta.getUser('carol'))!;
    const wheel = await buildWheel(join(dir, 'd'), { name: 'acme-users', version: '1.0' });
    const res = await fetch(`${source.url}/legacy/`, { method: 'POST', body: await uploadForm(wheel), headers: { Authorization: token(tokens.alice!) } });
    assert.equal(res.status, 200, res.statusText);
    archive = join(dir, 'with-users.tar');
    const exported = await runLarderCli(['export', archive, '--include-users', '--data', source.data]);
    assert.equal(exported.code, 0, output(exported));
  });

  after(async () => {
    for (const s of servers) await s.close();
    await source?.close();
  });

  test('without --include-users no user or token is imported, and one line says so', async () => {
    const data = await target();
    const r = await runLarderCli(['import', archive, '--data', data]);
    assert.equal(r.code, 0, output(r));
    assert.equal(lines(r.stdout)[0], NOT_IMPORTED);
    const server = await serve(data);
    assert.equal((await fetch(`${server.url}/simple/acme-users/`)).status, 200, 'the project is imported');
    assert.equal(await signsIn(server, basicAuth('root', 'root-password')), false);
    assert.equal(await signsIn(server, token(tokens.root!)), false);
    assert.equal(await signsIn(server, token(tokens.alice!)), false, "the archive's alice token is not this alice's");
    assert.equal(await signsIn(server, basicAuth('alice', 'target-alice-password')), true);
  });

  test('with --include-users: listed first; an administrator becomes an ordinary user; another alice is not merged', async () => {
    const data = await target((t) => t.larder.meta.putUser(carol));
    const listing = ['the archive holds 3 users (1 of them an administrator) and 3 tokens; with --include-users:', ALICE_NOT_MERGED, CAROL_SAME, ROOT_ORDINARY];

    // A dry run lists the same, and writes nothing.
    const dry = await runLarderCli(['import', archive, '--include-users', '--dry-run', '--data', data]);
    assert.equal(dry.code, 0, output(dry));
    assert.deepEqual(lines(dry.stdout).slice(0, 4), listing);
    const storage = openStorage(data);
    try {
      assert.equal(await storage.index.getUser('root'), undefined);
    } finally {
      await storage.close();
    }

    const r = await runLarderCli(['import', archive, '--include-users', '--data', data]);
    assert.equal(r.code, 0, output(r));
    assert.deepEqual(lines(r.stdout).slice(0, 4), listing);
    assert.match(r.stdout, /, 1 user, 2 tokens; /);
    assert.match(r.stdout, /; 1 user not merged into another account of the same name \(listed above\)$/m);

    const server = await serve(data);
    assert.equal(await signsIn(server, token(tokens.alice!)), false, "the archive's alice token does not sign in as this alice");
    assert.equal(await signsIn(server, basicAuth('alice', 'source-alice-password')), false);
    assert.equal(await signsIn(server, basicAuth('alice', 'target-alice-password')), true, 'the local alice is kept');
    assert.equal(await signsIn(server, token(tokens.carol!)), true, "the same carol's token is imported");
    assert.equal(await signsIn(server, basicAuth('root', 'root-password')), true);
    assert.equal(await signsIn(server, token(tokens.root!)), true);
    assert.equal(await isAdmin(server, basicAuth('root', 'root-password')), false, 'an administrator only with --grant-admins');
    assert.equal(await isAdmin(server, token(tokens.root!)), false);
  });

  test("--grant-admins keeps the archive's administrators administrators, and says so; it needs --include-users", async () => {
    const data = await target();
    const alone = await runLarderCli(['import', archive, '--grant-admins', '--data', data]);
    assert.equal(alone.code, 2, output(alone));
    assert.match(alone.stderr, /^larder: --grant-admins concerns imported users; add --include-users$/m);

    const r = await runLarderCli(['import', archive, '--include-users', '--grant-admins', '--data', data]);
    assert.equal(r.code, 0, output(r));
    const listed = lines(r.stdout);
    assert.equal(listed[0], 'the archive holds 3 users (1 of them an administrator) and 3 tokens; with --include-users and --grant-admins:');
    assert.ok(listed.includes(ROOT_ADMIN), r.stdout);
    const server = await serve(data);
    assert.equal(await isAdmin(server, basicAuth('root', 'root-password')), true);
    assert.equal(await signsIn(server, token(tokens.alice!)), false, 'another alice is still not merged');
  });
});

describe('import refuses archives whose accounts are malformed', () => {
  const dir = suiteTempDir('larder-import-hostile-');

  /** An archive with a consistent manifest holding just these records, as a hostile one could be made. */
  async function craft(name: string, records: Partial<Record<DbName, [unknown, unknown][]>>): Promise<string> {
    const path = join(dir, `${name}.tar`);
    const header: ExportHeader = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      createdAt: new Date().toISOString(),
      larderVersion: LARDER_VERSION,
      options: { private: true, cache: false, projects: null, includeUsers: true },
      counts: { records: Object.fromEntries(Object.entries(records).map(([db, r]) => [db, r.length])), blobs: 0, blobBytes: 0 },
    };
    const writer = new ArchiveWriter(path);
    await writer.addBuffer(HEADER_ENTRY, Buffer.from(JSON.stringify(header)));
    for (const [db, lines] of Object.entries(records)) {
      await writer.addBuffer(recordsEntry(db as DbName), Buffer.from(lines.map(([k, v]) => `${encodeRecord(k, v)}\n`).join('')));
    }
    await writer.addBuffer(MANIFEST_ENTRY, Buffer.from(JSON.stringify({ format: FORMAT, formatVersion: FORMAT_VERSION, entries: writer.entries })));
    await writer.finish();
    return path;
  }

  const user = (name: string): [string, UserRecord] => [
    name,
    { name, passwordHash: 'scrypt$16384$8$1$c2FsdA==$a2V5', admin: true, createdAt: '2024-01-01T00:00:00.000Z' },
  ];
  const tokenOf = (who: string, hash = 'a'.repeat(64)) => [
    hash,
    { id: hash.slice(0, 12), hash, user: who, projects: null, description: null, createdAt: '2024-01-01T00:00:00.000Z' },
  ];

  test('a token of a user the archive lacks, a user name larder would not accept, a user twice', async () => {
    const cases: [string, Partial<Record<DbName, [unknown, unknown][]>>, string][] = [
      [
        'orphan-token',
        { users: [user('mallory')], tokens: [tokenOf('alice') as [unknown, unknown]] },
        'records/tokens.jsonl line 1: token of user alice, whom the archive lacks',
      ],
      ['bad-name', { users: [user('__token__')] }, "records/users.jsonl line 1: invalid user name '__token__'"],
      ['twice', { users: [user('alice'), user('alice')] }, 'records/users.jsonl line 2: user alice appears twice'],
    ];
    const data = join(dir, 'target');
    for (const [name, records, reason] of cases) {
      const r = await runLarderCli(['import', await craft(name, records), '--include-users', '--data', data]);
      assert.equal(r.code, 1, `${name}: ${output(r)}`);
      assert.ok(r.stderr.startsWith(`larder: import refused: ${reason}`), `${name}: ${r.stderr}`);
      assert.equal(r.stdout, '', name);
    }
  });
});
