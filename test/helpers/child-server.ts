/** Runs the real `larder serve` CLI as a child process and finds its URL in its JSON log lines. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCommand } from '../fixtures/clients.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildServer {
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<ExitStatus>;
  /** Sends `signal` (unless the child is gone) and waits for the exit. */
  stop(signal: NodeJS.Signals): Promise<ExitStatus>;
  /** True until the child has exited. */
  alive(): boolean;
  /** How the child exited, or null while it runs. */
  exitStatus(): ExitStatus | null;
}

export interface ChildServerOptions {
  /**
   * Wraps the command line: gets `node` and its arguments, returns what to spawn instead (e.g. `unshare …
   * sh -c '… exec "$@"'`). Whatever it runs should exec node, so that `child.pid` is larder's pid.
   */
  launch?: (node: string, args: string[]) => { command: string; args: string[] };
  /** How long larder may take to listen. Default 30 s. */
  startTimeoutMs?: number;
}

/** The environment without this machine's LARDER_* settings. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('LARDER_')) env[k] = v;
  return { ...env, ...extra };
}

/** Adds the user `alice` (password `alice-password`) to a data directory with the real CLI, as an operator would. */
export async function addAlice(data: string): Promise<void> {
  const add = await runCommand(
    process.execPath,
    ['--import', 'tsx', join(REPO, 'src', 'main.ts'), 'user', 'add', 'alice', '--password-stdin', '--data', data],
    {
      cwd: REPO,
      env: cliEnv(),
      input: 'alice-password\n',
      timeoutMs: 60_000,
    },
  );
  if (add.code !== 0) throw new Error(`larder user add failed: ${add.stderr}`);
}

/** The `node` flags `npm start` and the Docker image run larder with (docs/performance.md, "Memory"). */
export const DEPLOYED_NODE_FLAGS = ['--max-semi-space-size=4'];

export async function startChildServer(args: string[], env: Record<string, string> = {}, options: ChildServerOptions = {}): Promise<ChildServer> {
  const nodeArgs = [...DEPLOYED_NODE_FLAGS, '--import', 'tsx', 'src/main.ts', 'serve', '--port', '0', ...args];
  const { command, args: argv } = options.launch?.(process.execPath, nodeArgs) ?? { command: process.execPath, args: nodeArgs };
  const child = spawn(command, argv, {
    cwd: REPO,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  let status: ExitStatus | null = null;
  const exited = new Promise<ExitStatus>((resolve) =>
    child.once('exit', (code, signal) => {
      status = { code, signal };
      resolve(status);
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timeoutMs = options.startTimeoutMs ?? 30_000;
    const timer = setTimeout(() => reject(new Error(`larder did not start within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const look = () => {
      const match = /listening on (http:\/\/[^\s"()]+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', look);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', look);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`could not run ${command}: ${err.message}`));
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`larder exited (${code ?? signal}) before listening:\n${out}`));
    });
  }).catch((err: unknown) => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    throw err;
  });
  return {
    url,
    child,
    output: () => out,
    exited,
    stop(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    alive: () => status === null,
    exitStatus: () => status,
  };
}

export interface SuiteChildServer {
  /** The suite's temporary folder; the server's data directory is its `data` folder. */
  readonly dir: string;
  /** The running server, once the `before` hook has started it. */
  readonly server: ChildServer;
}

export interface SuiteChildServerOptions {
  /** The arguments after `serve --port 0`, given the data directory; default: no upstream. */
  args?: (data: string) => string[];
  env?: Record<string, string>;
  /** Whether to add the user `alice` first (default true). */
  alice?: boolean;
  /** Runs after `alice` is added and before the server starts (e.g. to start its upstream). */
  prepare?: () => Promise<void>;
}

/**
 * `larder serve` for the tests of one suite: a `before` hook makes a fresh temporary folder, adds `alice` to its
 * data directory (unless `alice: false`), runs `prepare` and starts the server; an `after` hook stops it (SIGTERM) and removes the folder.
 */
export function suiteChildServer(prefix: string, options: SuiteChildServerOptions = {}): SuiteChildServer {
  const dir = join(tmpdir(), `${prefix}${randomBytes(6).toString('hex')}`);
  const data = join(dir, 'data');
  let server: ChildServer | undefined;
  before(async () => {
    await mkdir(dir);
    if (options.alice !== false) await addAlice(data);
    await options.prepare?.();
    server = await startChildServer(options.args?.(data) ?? ['--data', data, '--upstream', 'none'], options.env);
  });
  after(async () => {
    await server?.stop('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  });
  return {
    dir,
    get server() {
      if (!server) throw new Error('the child server is started by a before hook');
      return server;
    },
  };
}
