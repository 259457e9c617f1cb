/**
 * The set-up most proxy tests begin with: a temp folder, a fake upstream offering wheels built there, and
 * larders pointed at that upstream. `close` stops every larder it started, clears any fault, and removes it all.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { Clock } from '../../src/base/clock.js';
import type { Logger } from 'pino';
import type { Settings } from '../../src/config/schema.js';
import { buildWheel, type BuiltDist, type WheelSpec } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { startLarder, type TestLarder } from './larder.js';

export interface UpstreamBench {
  dir: string;
  up: FakeUpstream;
  /** Builds a wheel in the temp folder and offers it upstream under its project name. */
  offerWheel(spec: WheelSpec): Promise<BuiltDist>;
  /** Starts a larder on the upstream with `defaults` and then `overrides` applied; `close` stops it. */
  larder(overrides?: Partial<Settings>, options?: { clock?: Clock; logger?: Logger }): Promise<TestLarder>;
  close(): Promise<void>;
}

export async function startUpstreamBench(prefix: string, defaults: Partial<Settings> = {}): Promise<UpstreamBench> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const up = await startFakeUpstream();
  const larders: TestLarder[] = [];
  return {
    dir,
    up,
    async offerWheel(spec) {
      const wheel = await buildWheel(dir, spec);
      up.addProject(spec.name, [wheel]);
      return wheel;
    },
    async larder(overrides = {}, options = {}) {
      const l = await startLarder({ upstream: up.url, ...defaults, ...overrides }, undefined, options);
      larders.push(l);
      return l;
    },
    async close() {
      await up.setFault(null);
      for (const l of larders) await l.close();
      await up.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** An upstream bench for the tests of one suite, started by a `before` hook and closed (with its larders) by an `after` hook. */
export function suiteUpstreamBench(prefix: string, defaults: Partial<Settings> = {}): Omit<UpstreamBench, 'close'> {
  let bench: UpstreamBench | undefined;
  before(async () => {
    bench = await startUpstreamBench(prefix, defaults);
  });
  after(() => bench?.close());
  const started = (): UpstreamBench => {
    if (!bench) throw new Error('the upstream bench is started by a before hook');
    return bench;
  };
  return {
    get dir() {
      return started().dir;
    },
    get up() {
      return started().up;
    },
    offerWheel: (spec) => started().offerWheel(spec),
    larder: (overrides, options) => started().larder(overrides, options),
  };
}
