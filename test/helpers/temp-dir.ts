/**
 * A temporary folder for the tests of one suite (or of a file, called at its top level): its path is known at
 * once, a `before` hook makes it and an `after` hook removes it. node:test runs `after` hooks in the order they
 * were registered, so a suite that runs something in the folder (a child server) registers the `after` that
 * stops it before calling this.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';

export function suiteTempDir(prefix: string): string {
  const dir = join(tmpdir(), `${prefix}${randomBytes(6).toString('hex')}`);
  before(() => mkdir(dir));
  after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
