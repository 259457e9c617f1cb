/** Time as a dependency: code that reads the time takes a Clock, so tests can move it instead of sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
