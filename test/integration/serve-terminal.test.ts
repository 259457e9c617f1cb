/**
 * `larder serve` at a terminal, as a person sees it: the real CLI in a pseudo-terminal (`script` from
 * util-linux). A start-up summary of a few lines (never a password), then one line per request.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliEnv, REPO } from '../helpers/child-server.js';
import { eventually } from '../helpers/eventually.js';
import { rawGet } from '../helpers/raw-get.js';

const ANSI = /\u001b\[[0-9;]*m/g;
const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

test('at a terminal: a short start-up summary without secrets, then one line per request', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-serve-tty-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const argv = [process.execPath, '--import', 'tsx', 'src/main.ts', 'serve', '--port', '0', '--data', join(dir, 'data'), '--offline'];
  argv.push('--upstream', 'http://mirror-user:hunter2-secret@127.0.0.1:9/simple/');
  const child = spawn('script', ['-q', '-e', '-c', argv.map(quote).join(' '), '/dev/null'], {
    cwd: REPO,
    env: cliEnv({ TERM: 'xterm' }),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    await exited;
  });
  const lines = () => out.replace(ANSI, '').replace(/\r/g, '').split('\n');

  await eventually(() => /listening on http:\/\/\S+/.test(out), `the server listening; output so far:\n${out}`, 30_000);
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out.replace(ANSI, ''))![1]!;
  assert.equal((await rawGet(`${url}/simple/`)).status, 200);
  await eventually(() => lines().some((l) => / GET \/simple\/ /.test(l)), `the request line; output so far:\n${out}`);

  const all = lines();
  const requestAt = all.findIndex((l) => / GET \/simple\/ /.test(l));
  const summary = all.slice(0, requestAt).filter((l) => l.trim() !== '');
  assert.ok(summary.length >= 4 && summary.length <= 10, `a summary of at most 10 lines:\n${summary.join('\n')}`);
  assert.match(
    summary[0]!,
    /^\d{2}:\d{2}:\d{2}\.\d{3} larder \d+\.\d+\.\d+\S* listening on http:\/\/127\.0\.0\.1:\d+ \(simple index: http:\/\/127\.0\.0\.1:\d+\/simple\/\)$/,
  );
  const text = summary.join('\n');
  assert.match(text, new RegExp(`data +${join(dir, 'data').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.match(text, /upstream +http:\/\/127\.0\.0\.1:9\/simple\//);
  assert.match(text, /mode +offline/);
  assert.match(text, /backends +LMDB \+ files/);
  assert.ok(!text.includes('hunter2') && !text.includes('mirror-user'), 'no credentials in the summary');
  assert.ok(!out.includes('"upstreamConnectTimeout"'), 'no configuration dump at the info level');
  assert.match(all[requestAt]!, /^\d{2}:\d{2}:\d{2}\.\d{3} GET \/simple\/ 200 [\d.]+ ms$/);

  process.kill(-child.pid!, 'SIGTERM');
  await exited;
});
