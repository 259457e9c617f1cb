/** Runs the `larder` command line in this process, as `src/main.ts` would, capturing its output and exit code. */
import assert from 'node:assert/strict';
import { runCli } from '../../src/cli/run.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `env` is the command's whole environment (LARDER_UPSTREAM=none unless given), so this machine's LARDER_*
 * settings never leak in. `input` is what standard input holds.
 */
export async function runLarderCli(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    out: (line) => (stdout += `${line}\n`),
    err: (line) => (stderr += `${line}\n`),
    readStdin: async () => opts.input ?? '',
    env: { LARDER_UPSTREAM: 'none', ...opts.env },
  });
  if (code < 0) throw new Error(`larder ${args.join(' ')} started serving; run serve as a child process instead`);
  return { code, stdout, stderr };
}

/** Fails with the command's whole output unless it exited 0. */
export function assertCliOk(r: CliResult): void {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
}
