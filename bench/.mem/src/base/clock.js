export const systemClock = { now: () => Date.now() };
