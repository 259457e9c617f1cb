/** A clock tests move by hand. */
import type { Clock } from '../../src/base/clock.js';

export class ManualClock implements Clock {
  constructor(private time = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.time;
  }

  advance(ms: number): void {
    this.time += ms;
  }
}
