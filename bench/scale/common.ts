/** What the scale section gets from the runner, its knobs, and the growth arithmetic its notes share. */
import type { Figure } from '../lib/report.js';
import { fmt } from '../lib/report.js';
import type { UpstreamReady } from '../upstream-child.js';

/** A larder child as bench/run.ts starts it. */
export interface ScaleLarder {
  url: string;
  pid: number;
  data: string;
  stop(): Promise<void>;
}

export interface ScaleContext {
  upstream: UpstreamReady;
  /** The run's temporary directory. */
  tmp: string;
  /** The build of src/ larder runs from (bench/.build/src, or src/ under BENCH_TSX). */
  moduleRoot: string;
  /** Starts larder on `dataDir` (a fresh one when missing), pointed at the bench's upstream. */
  startLarder(label: string, profile?: boolean, dataDir?: string): Promise<ScaleLarder>;
  log(msg: string): void;
  figures: Figure[];
  extra: Record<string, unknown>;
}

export interface ScaleKnobs {
  reps: number;
  wrkSeconds: number;
  warmupSeconds: number;
  connections: number;
  wrkThreads: number;
  /** Cached files in the store, in increasing order; the first is the baseline the others compare with. */
  storeFiles: number[];
  storeBlobBytes: number;
  /** Distinct cached files the hit figures rotate over. */
  storeHitPaths: number;
  gcReps: number;
  startupReps: number;
  downloadReps: number;
}

export function scaleKnobs(env: NodeJS.ProcessEnv): ScaleKnobs {
  const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
  return {
    reps: num('BENCH_SCALE_REPS', 3),
    wrkSeconds: num('BENCH_SECONDS', 3),
    warmupSeconds: num('BENCH_WARMUP_SECONDS', 1),
    connections: num('BENCH_CONNECTIONS', 32),
    wrkThreads: num('BENCH_WRK_THREADS', 1),
    storeFiles: (env.BENCH_SCALE_STORE_FILES ?? '1000,10000,100000')
      .split(',')
      .map((s) => Number(s.trim()))
      .sort((a, b) => a - b),
    storeBlobBytes: num('BENCH_SCALE_BLOB_BYTES', 2000),
    storeHitPaths: num('BENCH_SCALE_HIT_PATHS', 500),
    gcReps: num('BENCH_SCALE_GC_REPS', 1),
    startupReps: num('BENCH_SCALE_STARTUP_REPS', 3),
    downloadReps: num('BENCH_SCALE_DOWNLOAD_REPS', 3),
  };
}

/**
 * How a cost grows from `small` to `large` items, per tenfold: (large / small) ^ (1 / log10(large / small items)).
 * ×1 is flat, ×10 is linear.
 */
export function perTenfold(costSmall: number, costLarge: number, itemsSmall: number, itemsLarge: number): number {
  return (costLarge / costSmall) ** (1 / Math.log10(itemsLarge / itemsSmall));
}

/** `×3.2 per 10× files (2,000 → 20,000: 5.1 → 16 ms)` */
export function growthNote(costSmall: number, costLarge: number, itemsSmall: number, itemsLarge: number, unit: string, items = 'files'): string {
  const n = (v: number) => v.toLocaleString('en-US');
  return `×${fmt(perTenfold(costSmall, costLarge, itemsSmall, itemsLarge))} per 10× ${items} (${n(itemsSmall)} → ${n(itemsLarge)}: ${fmt(costSmall)} → ${fmt(costLarge)} ${unit})`;
}

export function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`check failed: ${message}`);
}
