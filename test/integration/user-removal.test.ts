/**
 * Removing a user takes their project roles with them: a user later added under the same name (by the
 * real CLI, while the server runs) owns and maintains nothing.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../fixtures/clients.js';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { cliEnv } from '../helpers/child-server.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { uploadForm } from '../helpers/upload-form.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

async function cli(data: string, args: string[], input?: string): Promise<void> {
  const r = await runCommand(process.execPath, ['--import', 'tsx', join(REPO, 'src', 'main.ts'), ...args, '--data', data], {
    cwd: REPO,
    env: cliEnv({ LARDER_UPSTREAM: 'none' }),
    input,
    timeoutMs: 60_000,
  });
  assert.equal(r.code, 0, `larder ${args.join(' ')}: ${r.stderr}`);
}

describe('removing a user', () => {
  let server: TestLarder;
  let dir: string;
  let v10: BuiltDist;
  let v11: BuiltDist;

  const upload = async (dist: BuiltDist, auth: string) =>
    fetch(`${server.url}/legacy/`, { method: 'POST', body: await uploadForm(dist), headers: { Authorization: auth } });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-removal-'));
    server = await startLarder();
    v10 = await buildWheel(dir, { name: 'acme-roles', version: '1.0' });
    v11 = await buildWheel(dir, { name: 'acme-roles', version: '1.1' });
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("a user re-added under a removed name cannot yank or upload to the old user's project", async () => {
    await server.addUser('alice', 'old-alice-password');
    await server.addUser('carol', 'old-carol-password');
    const res = await upload(v10, basicAuth('alice', 'old-alice-password'));
    assert.equal(res.status, 200, res.statusText);
    assert.ok(await server.larder.meta.addMaintainer('acme-roles', 'carol', null));

    // Two CLI processes at a time beside the running server (LMDB takes writers from several processes).
    await Promise.all([cli(server.data, ['user', 'remove', 'alice']), cli(server.data, ['user', 'remove', 'carol'])]);
    await Promise.all([
      cli(server.data, ['user', 'add', 'alice', '--password-stdin'], 'new-alice-password\n'),
      cli(server.data, ['user', 'add', 'carol', '--password-stdin'], 'new-carol-password\n'),
    ]);
    for (const auth of [basicAuth('alice', 'new-alice-password'), basicAuth('carol', 'new-carol-password')]) {
      const yank = await fetch(`${server.url}/api/projects/acme-roles/releases/1.0/yank`, { method: 'POST', headers: { Authorization: auth } });
      assert.equal(yank.status, 403, yank.statusText);
      assert.match(yank.statusText, /isn't allowed to manage project 'acme-roles'/);
      const again = await upload(v11, auth);
      assert.equal(again.status, 403, again.statusText);
    }
    assert.equal((await server.larder.meta.getRelease('acme-roles', '1.0'))!.yanked, false);
    assert.equal(await server.larder.meta.getRelease('acme-roles', '1.1'), undefined);
    const project = (await server.larder.meta.getProject('acme-roles'))!;
    assert.deepEqual([project.owners, project.maintainers], [[], []]);
  });

  test('the store removes the user, their tokens and their roles', async () => {
    const meta = server.larder.meta;
    await server.addUser('dave', 'dave-password');
    await server.addToken('dave');
    assert.ok(await meta.addMaintainer('acme-roles', 'dave', null));
    assert.equal(await meta.removeUser('dave'), true);
    assert.equal(await meta.getUser('dave'), undefined);
    assert.deepEqual(await meta.listTokens('dave'), []);
    assert.ok(!(await meta.getProject('acme-roles'))!.maintainers.includes('dave'));
    assert.equal(await meta.removeUser('dave'), false);
  });
});
