/**
 * Summarises a V8 .cpuprofile (from `BENCH_PROFILE=1 npm run bench`, written to bench/profiles/):
 * self time by function and by package, and inclusive time of larder's own functions.
 *
 *   npx tsx bench/profile-summary.ts bench/profiles/larder-main-….cpuprofile [top=30] [--callers <function>]
 *
 * With --callers, prints the heaviest call stacks (inclusive time) ending in that function instead.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const args = process.argv.slice(2);
const callersOf = args.includes('--callers') ? args.splice(args.indexOf('--callers'), 2)[1] : undefined;
const [file, topArg] = args;
if (!file) {
  process.stderr.write('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top] [--callers <function name>]\n');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfMs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
}

function where(frame: CallFrame): string {
  const url = frame.url.replace(/^file:\/\//, '');
  const short = url.replace(/.*\/node_modules\//, 'nm:').replace(/.*\/(src|bench|test)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${short ? `${short}:${frame.lineNumber + 1}` : ''}`.trim();
}

function pkg(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native/builtin)';
  if (url.startsWith('node:')) return 'node:internal';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const own = /\/(src\/[^/]+)\//.exec(url);
  return own ? own[1]! : url;
}

const total = [...selfMs.values()].reduce((a, b) => a + b, 0);
const wall = (profile.endTime - profile.startTime) / 1000;
const idle = [...selfMs].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, ms]) => a + ms, 0);

const bySelf = new Map<string, number>();
const byPkg = new Map<string, number>();
for (const [id, ms] of selfMs) {
  const frame = byId.get(id)!.callFrame;
  bySelf.set(where(frame), (bySelf.get(where(frame)) ?? 0) + ms);
  byPkg.set(pkg(frame), (byPkg.get(pkg(frame)) ?? 0) + ms);
}

// Inclusive time per function: each sample counts once for every distinct function on its stack.
const inclusive = new Map<string, number>();
for (const [id, ms] of selfMs) {
  const seen = new Set<string>();
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
    const key = where(byId.get(n)!.callFrame);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + ms);
  }
}

const busy = total - idle;
if (callersOf) {
  // Stacks ending in the function, by the time spent in it (and below it).
  const stacks = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const chain: string[] = [];
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) chain.push(where(byId.get(n)!.callFrame));
    const at = chain.findIndex((f) => f.startsWith(`${callersOf} `) || f === callersOf);
    if (at < 0) continue;
    const key = chain.slice(at, at + 12).join('\n    <- ');
    stacks.set(key, (stacks.get(key) ?? 0) + ms);
  }
  const sortedStacks = [...stacks].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [stack, ms] of sortedStacks) process.stdout.write(`${ms.toFixed(0).padStart(7)} ms  ${stack}\n\n`);
  process.exit(0);
}
const pct = (ms: number) => `${((ms / busy) * 100).toFixed(1).padStart(5)}%`;
const print = (title: string, entries: [string, number][]) => {
  process.stdout.write(`\n${title}\n`);
  for (const [name, ms] of entries.slice(0, top)) process.stdout.write(`${pct(ms)} ${ms.toFixed(0).padStart(7)} ms  ${name}\n`);
};
process.stdout.write(
  `${file}\nwall ${wall.toFixed(0)} ms, sampled ${total.toFixed(0)} ms, idle ${idle.toFixed(0)} ms, busy ${busy.toFixed(0)} ms (percentages are of busy)\n`,
);
const sorted = (m: Map<string, number>) => [...m].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]);
print('self time by package', sorted(byPkg));
print('self time by function', sorted(bySelf));
print(
  'inclusive time, larder functions (src/)',
  sorted(inclusive).filter(([k]) => / src\//.test(k)),
);
