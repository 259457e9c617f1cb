/**
 * The CVSS 3.x base score of a vector (`CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H`), by the formulas of
 * the CVSS 3.1 specification (section 7), and the severity band of a score. 3.0 vectors are scored alike.
 */
import type { SeverityBand } from '../store/advisory-store.js';

const WEIGHTS = {
  AV: { N: 0.85, A: 0.62, L: 0.55, P: 0.2 },
  AC: { L: 0.77, H: 0.44 },
  UI: { N: 0.85, R: 0.62 },
  CIA: { H: 0.56, L: 0.22, N: 0 },
} as const;

/** Privileges Required weighs more when the scope changes. */
const PR = { U: { N: 0.85, L: 0.62, H: 0.27 }, C: { N: 0.85, L: 0.68, H: 0.5 } } as const;

const BASE_METRICS = ['AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A'] as const;

/** The specification's Roundup: the smallest one-decimal number at least the input, free of float error. */
function roundUp(value: number): number {
  const scaled = Math.round(value * 100_000);
  return scaled % 10_000 === 0 ? scaled / 100_000 : (Math.floor(scaled / 10_000) + 1) / 10;
}

function weight<T extends Record<string, number>>(table: T, value: string | undefined): number | null {
  return value !== undefined && Object.hasOwn(table, value) ? table[value as keyof T]! : null;
}

/** The base score (0.0–10.0), or null when the text is not a CVSS 3.x vector with every base metric. */
export function cvss3BaseScore(vector: string): number | null {
  const parts = vector.trim().split('/');
  if (!/^CVSS:3\.[01]$/.test(parts[0] ?? '')) return null;
  const metrics = new Map<string, string>();
  for (const part of parts.slice(1)) {
    const [name, value, extra] = part.split(':');
    if (!name || value === undefined || extra !== undefined) return null;
    metrics.set(name, value);
  }
  if (!BASE_METRICS.every((m) => metrics.has(m))) return null;
  const scope = metrics.get('S');
  if (scope !== 'U' && scope !== 'C') return null;
  const av = weight(WEIGHTS.AV, metrics.get('AV'));
  const ac = weight(WEIGHTS.AC, metrics.get('AC'));
  const pr = weight(PR[scope], metrics.get('PR'));
  const ui = weight(WEIGHTS.UI, metrics.get('UI'));
  const [c, i, a] = (['C', 'I', 'A'] as const).map((m) => weight(WEIGHTS.CIA, metrics.get(m)));
  if (av === null || ac === null || pr === null || ui === null || c == null || i == null || a == null) return null;
  const iss = 1 - (1 - c) * (1 - i) * (1 - a);
  const impact = scope === 'U' ? 6.42 * iss : 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15;
  const exploitability = 8.22 * av * ac * pr * ui;
  if (impact <= 0) return 0;
  return roundUp(Math.min((scope === 'U' ? 1 : 1.08) * (impact + exploitability), 10));
}

/** The band of a score: 0.1–3.9 low, 4.0–6.9 moderate, 7.0–8.9 high, 9.0–10 critical; null for 0 (none). */
export function scoreBand(score: number): SeverityBand | null {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'moderate';
  if (score > 0) return 'low';
  return null;
}

const BAND_RANK: Record<SeverityBand, number> = { low: 1, moderate: 2, high: 3, critical: 4 };

/** Whether `band` is `threshold` or worse. */
export function atLeast(band: SeverityBand, threshold: SeverityBand): boolean {
  return BAND_RANK[band] >= BAND_RANK[threshold];
}
