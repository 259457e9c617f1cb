/**
 * `larder_event_loop_delay_seconds`: how late the main thread ran a timer due every `resolutionMs`
 * (perf_hooks.monitorEventLoopDelay), as quantiles 0.5, 0.99 and 1 (the longest). While one request holds
 * the main thread, every other request waits that long, so this is the figure to alert on.
 *
 * The histogram is started afresh every `intervalMs`; a scrape reports the current interval and the one
 * before it (the larger of the two for each quantile), so the figures cover the last one to two intervals
 * and a stall drops out of them after at most two.
 */
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

export interface EventLoopDelayOptions {
  /** How often the timer is due, ms (the smallest delay told apart). Default 10. */
  resolutionMs?: number;
  /** How long one histogram collects before the next one starts, ms. Default 60,000. */
  intervalMs?: number;
}

const QUANTILES = [0.5, 0.99, 1] as const;

type Reading = Record<(typeof QUANTILES)[number], number>;

const NONE: Reading = { 0.5: 0, 0.99: 0, 1: 0 };

export class EventLoopDelay {
  private readonly histogram: ELDHistogram;
  private readonly resolutionNs: number;
  private previous: Reading = NONE;
  private readonly rotation: NodeJS.Timeout;

  constructor(registry: Registry, options: EventLoopDelayOptions = {}) {
    const resolutionMs = options.resolutionMs ?? 10;
    this.resolutionNs = resolutionMs * 1e6;
    this.histogram = monitorEventLoopDelay({ resolution: resolutionMs });
    this.histogram.enable();
    this.rotation = setInterval(() => {
      this.previous = this.current();
      this.histogram.reset();
    }, options.intervalMs ?? 60_000).unref();
    const read = () => this.reading();
    new Gauge({
      name: 'larder_event_loop_delay_seconds',
      help: 'How late the main thread ran a timer (quantile 1: the longest stall), over the last one to two minutes.',
      labelNames: ['quantile'],
      registers: [registry],
      collect() {
        const reading = read();
        for (const q of QUANTILES) this.set({ quantile: String(q) }, reading[q]);
      },
    });
  }

  /** Seconds by quantile, over the current interval and the one before. */
  reading(): Reading {
    const current = this.current();
    return { 0.5: Math.max(current[0.5], this.previous[0.5]), 0.99: Math.max(current[0.99], this.previous[0.99]), 1: Math.max(current[1], this.previous[1]) };
  }

  /** Stops sampling (the timer and the histogram); the last figures stay readable. */
  close(): void {
    clearInterval(this.rotation);
    this.previous = this.reading();
    this.histogram.disable();
    this.histogram.reset();
  }

  private current(): Reading {
    const h = this.histogram;
    if (h.count === 0) return NONE;
    // Each sample is the time between two runs of the timer: its resolution is not delay.
    const delay = (ns: number) => Math.max(0, ns - this.resolutionNs) / 1e9;
    return { 0.5: delay(h.percentile(50)), 0.99: delay(h.percentile(99)), 1: delay(h.max) };
  }
}
