/**
 * `larder_event_loop_delay_seconds`: exported on /metrics as three quantiles that parse, a stall of the main
 * thread shows in the longest one, an old stall drops out after two intervals, and close() stops sampling.
 * The assertions are lower bounds a forced stall guarantees (a busier machine only makes delays longer),
 * and comparisons with that stall.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { EventLoopDelay } from '../../src/metrics/event-loop-delay.js';
import { startLarder } from '../helpers/larder.js';
import { rawGet } from '../helpers/raw-get.js';

const LINE = /^larder_event_loop_delay_seconds\{quantile="(0\.5|0\.99|1)"\} (\S+)$/gm;

function quantiles(text: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const [, q, value] of text.matchAll(LINE)) found[q!] = Number(value);
  return found;
}

function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Holds the main thread, as a hostile input would.
  }
}

describe('larder_event_loop_delay_seconds', () => {
  test('is on /metrics as a gauge with quantiles 0.5, 0.99 and 1, each a number of seconds', async () => {
    const l = await startLarder();
    try {
      const res = await rawGet(`${l.url}/metrics`);
      assert.equal(res.status, 200);
      const text = res.body.toString('utf8');
      assert.match(text, /^# TYPE larder_event_loop_delay_seconds gauge$/m);
      const q = quantiles(text);
      assert.deepEqual(Object.keys(q).sort(), ['0.5', '0.99', '1']);
      for (const value of Object.values(q)) assert.ok(Number.isFinite(value) && value >= 0, text);
      assert.ok(q['0.5']! <= q['0.99']! && q['0.99']! <= q['1']!, text);
    } finally {
      await l.close();
    }
  });

  test('a stall shows as the longest delay; it drops out after two intervals; close() stops sampling', async () => {
    const registry = new Registry();
    const delay = new EventLoopDelay(registry, { resolutionMs: 10, intervalMs: 100 });
    try {
      await sleep(30);
      stall(600);
      await sleep(30);
      const during = quantiles(await registry.metrics());
      assert.ok(during['1']! >= 0.5, `a 600 ms stall: ${JSON.stringify(during)}`);

      await sleep(350);
      const later = delay.reading();
      assert.ok(later[1] < during['1']!, `three intervals later the stall is gone: ${JSON.stringify(later)} after ${JSON.stringify(during)}`);
    } finally {
      delay.close();
    }
    const closed = delay.reading();
    stall(600);
    await sleep(30);
    assert.deepEqual(delay.reading(), closed, 'nothing is sampled after close()');
  });
});
