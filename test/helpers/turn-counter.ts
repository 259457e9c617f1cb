/** Counts turns of the event loop (setImmediate callbacks) until `stop()`: proof that work yielded between slices. */
export function turnCounter(): { turns: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const count = () => {
    turns++;
    if (running) setImmediate(count);
  };
  setImmediate(count);
  return { turns: () => turns, stop: () => (running = false) };
}
