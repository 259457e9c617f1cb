/**
 * Splits test files into shards of about equal running time for test/run-sharded.sh: the longest first, each
 * into the shard with the least time so far. Times come from test/shard-weights.json (seconds per file on
 * the 2-core machine); a file it does not list counts as the median. Node's own --test-shard splits by
 * position in the list, which put the three longest files in one shard.
 *   node test/shard-plan.ts <shards> <file>...     one line per shard: its files
 *   node test/shard-plan.ts --weights <dir>         rewrites test/shard-weights.json from the JUnit reports that
 *                                                   `TEST_JUNIT_DIR=<dir> npm test` leaves in <dir>
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export function planShards(files: string[], shards: number, weights: Record<string, number>): string[][] {
  const known = Object.values(weights).sort((a, b) => a - b);
  const median = known.length ? known[known.length >> 1]! : 1;
  const weight = (file: string) => weights[file.replace(/^\.\//, '')] ?? median;
  const plan = Array.from({ length: shards }, () => ({ files: [] as string[], seconds: 0 }));
  const longestFirst = [...files].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b));
  for (const file of longestFirst) {
    const lightest = plan.reduce((best, shard) => (shard.seconds < best.seconds ? shard : best));
    lightest.files.push(file);
    lightest.seconds += weight(file);
  }
  return plan.map((shard) => shard.files.sort());
}

/**
 * Seconds per test file in a JUnit report of node:test: each top-level suite or test (hooks included) counts
 * for the first `.test.ts` file its tests name (tests a shared helper defines name the helper's file).
 */
export function junitSeconds(xml: string): Map<string, number> {
  const seconds = new Map<string, number>();
  let depth = 0;
  let group: { time: number; files: string[] } | null = null;
  const close = () => {
    const file = group!.files.find((f) => f.endsWith('.test.ts')) ?? group!.files[0];
    if (file) seconds.set(file, (seconds.get(file) ?? 0) + group!.time);
    group = null;
  };
  for (const [, slash, name, attrs, selfClosing] of xml.matchAll(/<(\/?)(testsuites|testsuite|testcase)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>/g)) {
    const attr = (key: string) => new RegExp(`\\b${key}="([^"]*)"`).exec(attrs!)?.[1];
    if (name === 'testsuites') continue;
    if (slash) {
      depth--;
      if (depth === 0 && group) close();
      continue;
    }
    if (depth === 0) group = { time: Number(attr('time') ?? 0), files: [] };
    const file = attr('file');
    if (name === 'testcase' && file) group?.files.push(file);
    if (!selfClosing) depth++;
    else if (depth === 0) close();
  }
  return seconds;
}

const WEIGHTS = fileURLToPath(new URL('./shard-weights.json', import.meta.url));

if (import.meta.url === `file://${process.argv[1]}`) {
  const [first, ...rest] = process.argv.slice(2);
  if (first === '--weights') {
    const repo = fileURLToPath(new URL('..', import.meta.url));
    const totals: Record<string, number> = {};
    for (const report of readdirSync(rest[0]!).filter((n) => n.endsWith('.xml'))) {
      for (const [file, time] of junitSeconds(readFileSync(join(rest[0]!, report), 'utf8'))) {
        const key = relative(repo, file);
        totals[key] = Math.round(((totals[key] ?? 0) + time) * 10) / 10;
      }
    }
    const sorted = Object.fromEntries(Object.entries(totals).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(WEIGHTS, `${JSON.stringify(sorted, null, 2)}\n`);
  } else {
    const weights = JSON.parse(readFileSync(WEIGHTS, 'utf8')) as Record<string, number>;
    for (const shard of planShards(rest, Number(first), weights)) process.stdout.write(`${shard.join(' ')}\n`);
  }
}
