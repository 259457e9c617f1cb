/** Waits for something another process (or a background task) makes true; fails naming it after `ms`. */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

export async function eventually(check: () => Promise<boolean> | boolean, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`timed out waiting for: ${what}`);
    await sleep(25);
  }
}
