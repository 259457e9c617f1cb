/**
 * A command run in its own process group, as a terminal or a service manager runs one: its output collected,
 * a wait for a line it prints, and a signal sent to the whole group (every process in it gets it, as with
 * Ctrl-C or systemd's stop).
 */
import { spawn } from 'node:child_process';
import type { ExitStatus } from './child-server.js';

export interface GroupProcess {
  pid: number;
  /** Standard output and standard error so far. */
  output(): string;
  stderr(): string;
  exited: Promise<ExitStatus>;
  /** Resolves with the first match of `pattern` in the output; rejects when the command exits first or after `ms`. */
  waitFor(pattern: RegExp, ms: number): Promise<RegExpExecArray>;
  /** Sends `signal` to every process of the group and waits for the command's exit. */
  signalGroup(signal: NodeJS.Signals): Promise<ExitStatus>;
}

export function startGroup(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): GroupProcess {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    changed();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    err += d;
    changed();
  });
  const exited = new Promise<ExitStatus>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  let done = false;
  void exited.then(() => {
    done = true;
    changed();
  });
  return {
    pid: child.pid!,
    output: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, ms) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => finish(() => reject(new Error(`no ${pattern} within ${ms} ms:\n${out}`))), ms);
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        const check = () => {
          const match = pattern.exec(out);
          if (match) finish(() => resolve(match));
          else if (done) finish(() => reject(new Error(`exited before printing ${pattern}:\n${out}`)));
        };
        listeners.add(check);
        check();
      });
    },
    signalGroup(signal) {
      if (!done) process.kill(-child.pid!, signal);
      return exited;
    },
  };
}
