/**
 * The download audit with a real pip (isolated: PIP_CONFIG_FILE=/dev/null, --isolated): pip installs from
 * larder with a user and password in the index URL, which it sends with every request, and with an API
 * token; `larder audit fetched` lists each wheel pip downloaded under its user (the token's id too), and not
 * the `.metadata` files pip read while resolving.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { hashToken } from '../../src/auth/tokens.js';
import { makeVenv, pipInstall, requireClients } from '../fixtures/clients.js';
import { startFakeUpstream } from '../fixtures/fake-upstream.js';
import { assertCliOk, runLarderCli } from '../helpers/cli.js';
import { e2eWork, showResult as show } from '../helpers/e2e-work.js';
import { basicAuth, startLarder } from '../helpers/larder.js';
import { publish } from '../helpers/upload-form.js';
import { buildWheelTable } from '../helpers/wheel-table.js';

test('pip downloads are recorded under the user of the index URL or of the token', { timeout: 120_000 }, async (t) => {
  if (!(await requireClients(t, ['python']))) return;
  const { work, cleanups } = await e2eWork(t, 'larder-e2e-audit-');
  const d = await buildWheelTable(join(work, 'dists'), { upstream: ['Lite_LLM', '1.82.1'], other: ['Lite_LLM', '1.83.0'], internal: ['acme-widgets', '1.0'] });
  const up = await startFakeUpstream();
  cleanups.push(() => up.close());
  up.addProject('lite-llm', [d.upstream, d.other]);
  const server = await startLarder({ upstream: up.url }, join(work, 'data'));
  cleanups.push(() => server.close());
  await server.addUser('alice', 'alice-password');
  await server.addUser('ci-bot', 'ci-bot-password');
  await publish(server.url, basicAuth('alice', 'alice-password'), d.internal);
  const token = await server.addToken('ci-bot');

  const venv = await makeVenv(join(work, 'venv'));
  const asAlice = server.url.replace('//', '//alice:alice-password@');
  const first = await pipInstall(venv, `${asAlice}/simple/`, ['--no-deps', 'lite-llm==1.82.1']);
  assert.equal(first.code, 0, show(first));
  const asBot = server.url.replace('//', `//__token__:${token}@`);
  const second = await pipInstall(venv, `${asBot}/simple/`, ['--no-deps', 'acme-widgets']);
  assert.equal(second.code, 0, show(second));
  await server.larder.audit!.flush();

  const env = { LARDER_DATA: server.data };
  const lite = await runLarderCli(['audit', 'fetched', 'lite-llm'], { env });
  assertCliOk(lite);
  const liteRows = lite.stdout.trimEnd().split('\n').slice(1);
  assert.deepEqual(
    liteRows.map((line) => line.split(/\s+/).slice(3, 9)),
    [['alice', '-', 'lite-llm', '1.82.1', d.upstream.filename, d.upstream.sha256]],
  );
  const internal = await runLarderCli(['audit', 'fetched', 'acme_widgets==1.0'], { env });
  assertCliOk(internal);
  assert.deepEqual(
    internal.stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/).slice(2, 7)),
    [['127.0.0.1', 'ci-bot', hashToken(token).slice(0, 12), 'acme-widgets', '1.0']],
  );
});
