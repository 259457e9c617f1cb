/** Figures, medians, the printed table and results.json. */

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Series {
  /** What produced the numbers: `larder`, `nginx`, `upstream (direct)`. */
  name: string;
  samples: number[];
  median: number;
  /** Per-sample details (latency percentiles, CPU use, …). */
  details?: unknown[];
}

export interface Check {
  what: string;
  ok: boolean;
}

export interface Figure {
  id: string;
  figure: string;
  unit: string;
  /** The number the absolute target is about (usually larder's median). */
  value: number;
  larder: Series;
  reference: Series | null;
  /** larder / reference (medians), when a reference was measured. */
  ratio: number | null;
  target: string;
  checks: Check[];
  pass: boolean;
  notes?: string;
}

export function series(name: string, samples: number[], details?: unknown[]): Series {
  return { name, samples, median: median(samples), ...(details ? { details } : {}) };
}

export type Goal =
  | { kind: 'min'; value: number }
  | { kind: 'max'; value: number }
  | { kind: 'minRatio'; value: number; label?: string }
  | { kind: 'maxRatio'; value: number; label?: string };

export function figure(
  id: string,
  name: string,
  unit: string,
  larder: Series,
  reference: Series | null,
  goals: Goal[],
  options: { value?: number; notes?: string } = {},
): Figure {
  const value = options.value ?? larder.median;
  const ratio = reference && reference.median !== 0 ? larder.median / reference.median : null;
  const checks: Check[] = [];
  const targets: string[] = [];
  for (const goal of goals) {
    switch (goal.kind) {
      case 'min':
        targets.push(`≥ ${fmt(goal.value)} ${unit}`);
        checks.push({ what: `${fmt(value)} ≥ ${fmt(goal.value)} ${unit}`, ok: value >= goal.value });
        break;
      case 'max':
        targets.push(`≤ ${fmt(goal.value)} ${unit}`);
        checks.push({ what: `${fmt(value)} ≤ ${fmt(goal.value)} ${unit}`, ok: value <= goal.value });
        break;
      case 'minRatio':
        targets.push(`≥ ${goal.label ?? fmt(goal.value)} of ${reference?.name ?? 'reference'}`);
        checks.push({ what: `ratio ${ratio?.toFixed(3)} ≥ ${goal.value.toFixed(3)}`, ok: ratio !== null && ratio >= goal.value });
        break;
      case 'maxRatio':
        targets.push(`≤ ${goal.label ?? fmt(goal.value)}× ${reference?.name ?? 'reference'}`);
        checks.push({ what: `ratio ${ratio?.toFixed(3)} ≤ ${goal.value.toFixed(3)}`, ok: ratio !== null && ratio <= goal.value });
        break;
    }
  }
  return {
    id,
    figure: name,
    unit,
    value,
    larder,
    reference,
    ratio,
    target: targets.join('; ') || '(info)',
    checks,
    pass: checks.every((c) => c.ok),
    ...(options.notes ? { notes: options.notes } : {}),
  };
}

export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (abs >= 1000) return Math.round(n).toLocaleString('en-US');
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 10) return n.toFixed(1);
  if (abs >= 1) return n.toFixed(2);
  return n.toFixed(3);
}

export function table(figures: Figure[]): string {
  const rows = [['figure', 'larder', 'reference', 'ratio', 'target', 'pass']];
  for (const f of figures) {
    const value = `${fmt(f.value)} ${f.unit}`;
    const larder = f.value !== f.larder.median ? `${value} (${f.larder.name} ${fmt(f.larder.median)})` : value;
    const reference = f.reference ? `${fmt(f.reference.median)} ${f.unit} (${f.reference.name})` : '–';
    const ratio = f.ratio === null ? '–' : f.ratio.toFixed(2);
    const pass = f.checks.length === 0 ? 'info' : f.pass ? 'PASS' : 'FAIL';
    rows.push([f.figure, larder, reference, ratio, f.target, pass]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...r[i]!].length)));
  const line = (r: string[]) => `| ${r.map((cell, i) => cell + ' '.repeat(widths[i]! - [...cell].length)).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}
