/** Runs Debian's `wrk --latency` and parses its report. */
import { run } from './proc.js';

export const WRK = process.env.BENCH_WRK ?? '/usr/bin/wrk';

export interface WrkResult {
  requestsPerSec: number;
  /** Latency percentiles, milliseconds. */
  p50: number;
  p75: number;
  p90: number;
  p99: number;
  requests: number;
  /** Responses outside 2xx/3xx. */
  non2xx: number;
  socketErrors: number;
  transferPerSec: string;
}

export interface WrkOptions {
  url: string;
  connections: number;
  threads: number;
  seconds: number;
  headers?: Record<string, string>;
  /** A Lua script for wrk's `-s` (e.g. to rotate request paths). */
  script?: string;
}

function toMs(value: string, unit: string): number {
  const n = Number(value);
  switch (unit) {
    case 'us':
      return n / 1000;
    case 'ms':
      return n;
    case 's':
      return n * 1000;
    case 'm':
      return n * 60_000;
    default:
      throw new Error(`wrk: unknown latency unit ${unit}`);
  }
}

export function parseWrk(output: string): WrkResult {
  const percentile = (p: number): number => {
    const match = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(output);
    if (!match) throw new Error(`wrk: no ${p}% latency in output:\n${output}`);
    return toMs(match[1]!, match[2]!);
  };
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(output);
  const total = /^\s*(\d+) requests in/m.exec(output);
  if (!rps || !total) throw new Error(`wrk: unexpected output:\n${output}`);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    requestsPerSec: Number(rps[1]),
    p50: percentile(50),
    p75: percentile(75),
    p90: percentile(90),
    p99: percentile(99),
    requests: Number(total[1]),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    transferPerSec: /^Transfer\/sec:\s+(\S+)/m.exec(output)?.[1] ?? '',
  };
}

export async function wrk(options: WrkOptions): Promise<WrkResult> {
  const args = [`-t${options.threads}`, `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '5s', '--latency'];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  if (options.script) args.push('-s', options.script);
  args.push(options.url);
  const result = await run(WRK, args, (options.seconds + 15) * 1000);
  if (result.timedOut) throw new Error(`wrk did not finish in time: ${args.join(' ')}`);
  if (result.code !== 0) throw new Error(`wrk failed (${result.code}): ${result.stderr || result.stdout}`);
  const parsed = parseWrk(result.stdout);
  if (parsed.non2xx > 0 || parsed.socketErrors > 0) {
    throw new Error(`wrk saw ${parsed.non2xx} non-2xx/3xx responses and ${parsed.socketErrors} socket errors on ${options.url}:\n${result.stdout}`);
  }
  return parsed;
}
