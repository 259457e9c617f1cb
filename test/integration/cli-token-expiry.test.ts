/** `larder token create --expires` and the EXPIRES column of `larder token list`, against a data directory. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { hashToken } from '../../src/auth/tokens.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import { assertCliOk as assertOk, runLarderCli as larder } from '../helpers/cli.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

describe('larder token create --expires', () => {
  const tmp = suiteTempDir('larder-cli-expiry-');
  const data = join(tmp, 'data');

  before(async () => {
    assertOk(await larder(['user', 'add', 'alice', '--password-stdin', '--data', data], { input: 'alice-password-1\n' }));
  });

  const create = async (expires: string[]) => {
    const r = await larder(['token', 'create', 'alice', ...expires, '--data', data]);
    assertOk(r);
    return { out: r.stdout, hash: hashToken(lines(r.stdout).at(-1)!.trim()) };
  };

  test('a date, a duration or never; the list shows when each expires', async () => {
    const dated = await create(['--expires', '2099-01-31']);
    assert.match(dated.out, /expires 2099-01-31T00:00:00\.000Z;/);
    const lasting = await create(['--expires', '30d']);
    const forever = await create([]);
    assert.match(forever.out, /never expires/);

    const storage = openStorage(data);
    try {
      const meta = storage.index;
      assert.equal((await meta.getTokenByHash(dated.hash))!.expiresAt, '2099-01-31T00:00:00.000Z');
      const record = (await meta.getTokenByHash(lasting.hash))!;
      assert.equal(Date.parse(record.expiresAt!) - Date.parse(record.createdAt), 30 * 86_400_000);
      assert.equal((await meta.getTokenByHash(forever.hash))!.expiresAt, undefined);
      // One that has expired already (written directly: the command refuses a past expiry).
      await meta.putToken({ ...record, id: 'e'.repeat(12), hash: 'e'.repeat(64), expiresAt: '2020-01-01T00:00:00.000Z' });
    } finally {
      await storage.close();
    }

    const list = await larder(['token', 'list', '--data', data]);
    assertOk(list);
    const rows = lines(list.stdout);
    assert.match(rows[0]!, /^ID\s+USER\s+PROJECTS\s+CREATED\s+EXPIRES\s+DESCRIPTION/);
    const row = (hash: string) => rows.find((r) => r.startsWith(hash.slice(0, 12)))!;
    assert.match(row(dated.hash), /2099-01-31T00:00:00\.000Z/);
    assert.match(row(forever.hash), /\bnever\b/);
    assert.match(row('e'.repeat(12)), /2020-01-01T00:00:00\.000Z \(expired\)/);
  });

  test('a past, malformed or too distant expiry is refused with one line, and nothing is created', async () => {
    const before = (await larder(['token', 'list', 'alice', '--data', data])).stdout;
    for (const [value, message] of [
      ['2000-01-01', /--expires: 2000-01-01T00:00:00\.000Z is not in the future/],
      ['tomorrow', /--expires: 'tomorrow' is not a duration such as 30d/],
      ['2099-02-31', /--expires: '2099-02-31' is not a valid date/],
      ['200y', /more than 100 years ahead/],
    ] as const) {
      const r = await larder(['token', 'create', 'alice', '--expires', value, '--data', data]);
      assert.equal(r.code, 2, r.stdout);
      assert.equal(lines(r.stderr).length, 1);
      assert.match(r.stderr, message);
    }
    assert.equal((await larder(['token', 'list', 'alice', '--data', data])).stdout, before);
  });
});
