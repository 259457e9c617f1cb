/**
 * What the end-to-end client tests share: a work folder whose clean-ups run (newest first) when the test ends,
 * before the folder is removed; the `larder` command line run as a separate process; and a command's whole
 * result for an assertion message.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { cleanEnv, runCommand, type CommandResult } from '../fixtures/clients.js';
import { REPO } from './child-server.js';

export interface E2eWork {
  work: string;
  cleanups: (() => Promise<unknown>)[];
}

export async function e2eWork(t: TestContext, prefix: string): Promise<E2eWork> {
  const work = await mkdtemp(join(tmpdir(), prefix));
  const cleanups: (() => Promise<unknown>)[] = [];
  t.after(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
    await rm(work, { recursive: true, force: true });
  });
  return { work, cleanups };
}

export const showResult = (r: CommandResult) => `exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

/** `larder ARGS` in a child process, with none of this machine's LARDER_* settings and no upstream unless `env` names one. */
export function larderProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CommandResult> {
  const clean = cleanEnv();
  for (const key of Object.keys(clean)) if (key.startsWith('LARDER_')) delete clean[key];
  return runCommand(process.execPath, ['--import', 'tsx', join(REPO, 'src', 'main.ts'), ...args], {
    cwd: REPO,
    env: { ...clean, LARDER_UPSTREAM: 'none', ...env },
    timeoutMs: 120_000,
  });
}
