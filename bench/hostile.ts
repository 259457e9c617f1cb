/**
 * `npm run bench:hostile`: every attack of issue 25 ("Hostile content"), the suite's
 * (test/slow/hostile-content.test.ts) and the largest sizes, each against a fresh `larder serve`
 * child with the suite's harness (test/helpers/hostile-lab.ts, hostile-probe.ts). Prints a Markdown table:
 * attack | hostile answer | longest wait of others | peak RSS (baseline → peak), and writes the figures to
 * bench/results-hostile.json. One attack at a time.
 *
 *   BENCH_HOSTILE_ONLY=id,id   only these attacks (ids as in test/helpers/hostile-attacks.ts)
 *   BENCH_HOSTILE_CAP_S=60     how long a hostile request may take before it is abandoned
 *   BENCH_HOSTILE_RESULTS      where to write the JSON (default bench/results-hostile.json)
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostileAttacks } from '../test/helpers/hostile-attacks.js';
import { runAttack, startHostileLab, type AttackRun } from '../test/helpers/hostile-lab.js';

const BENCH = dirname(fileURLToPath(import.meta.url));
const env = process.env;
const capMs = Number(env.BENCH_HOSTILE_CAP_S ?? 60) * 1000;
const only = env.BENCH_HOSTILE_ONLY ? new Set(env.BENCH_HOSTILE_ONLY.split(',').map((s) => s.trim())) : null;
const resultsPath = env.BENCH_HOSTILE_RESULTS ?? join(BENCH, 'results-hostile.json');

const { suite, benchOnly } = hostileAttacks();
const attacks = [...suite, ...benchOnly].filter((a) => !only || only.has(a.id));
if (only && attacks.length !== only.size) {
  const known = [...suite, ...benchOnly].map((a) => a.id).join(', ');
  throw new Error(`BENCH_HOSTILE_ONLY names an unknown attack; known: ${known}`);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

function answerCell(run: AttackRun): string {
  if (run.crashed) return `crashed: ${run.crashed.split('\n').find((l) => /heap|memory|error/i.test(l)) ?? run.crashed.slice(0, 80)}`;
  if (run.killedForRss) return `killed at the RSS limit after ${seconds(run.hostileMs)}`;
  if (run.timedOut) return `no answer in > ${seconds(capMs)}`;
  if (!run.answer) return `failed after ${seconds(run.hostileMs)}: ${run.error}`;
  return `${run.answer.status} in ${seconds(run.hostileMs)}: ${run.answer.firstLine}`;
}

function waitCell(run: AttackRun): string {
  const failed = run.probesFailed ? ` (${run.probesFailed} probes failed)` : '';
  return `${run.timedOut && run.longestWaitMs >= capMs - 1000 ? '> ' : ''}${seconds(run.longestWaitMs)}${failed}`;
}

const escapeCell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const log = (msg: string) => process.stdout.write(`[hostile] ${msg}\n`);
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
const loadAtStart = load();
log(`${cpus().length} cores, load average ${loadAtStart}; cap ${capMs / 1000} s per attack`);
const lab = await startHostileLab();
const rows: { id: string; title: string; run: AttackRun }[] = [];
const failures: string[] = [];
try {
  for (const attack of attacks) {
    log(`${attack.id}: ${attack.title}`);
    try {
      const run = await runAttack(lab, attack, { capMs });
      rows.push({ id: attack.id, title: attack.title, run });
      log(`  ${answerCell(run)}; longest wait ${waitCell(run)}; RSS ${run.baselineRssMiB} → ${run.peakRssMiB} MiB`);
    } catch (err) {
      // A setup that failed says nothing about the attack: reported, and the next one runs.
      failures.push(`${attack.id}: ${(err as Error).message}`);
      log(`  could not run: ${(err as Error).message}`);
    }
  }
} finally {
  await lab.close();
}

const lines = [
  '| attack | hostile answer | longest wait of others | peak RSS (baseline → peak) |',
  '|---|---|---|---|',
  ...rows.map(({ title, run }) =>
    [title, answerCell(run), waitCell(run), `${run.baselineRssMiB} → ${run.peakRssMiB} MiB${run.killedForRss ? ' (killed)' : ''}`]
      .map(escapeCell)
      .join(' | ')
      .replace(/^/, '| ')
      .replace(/$/, ' |'),
  ),
];
if (failures.length) process.stdout.write(`\nnot run:\n${failures.join('\n')}\n`);
process.stdout.write(`\n${lines.join('\n')}\n\nload average at the start ${loadAtStart}, at the end ${load()} (${cpus().length} cores)\n`);
writeFileSync(resultsPath, `${JSON.stringify({ capMs, at: new Date().toISOString(), loadAtStart, loadAtEnd: load(), attacks: rows }, null, 2)}\n`);
log(`figures written to ${resultsPath}`);
