/** The LMDB environment under data/meta: every database of the private index and the upstream cache lives in it. */
import { mkdirSync } from 'node:fs';
import { open, type RootDatabase } from 'lmdb';
import { dataLayout } from '../data-layout.js';

/** Keys of the databases: a string, a number, or an array of them (ordered element by element). */
export type Key = string | number | (string | number)[];

/** Upper bound for a prefix range over array keys whose first element is `prefix`. */
export const after = (prefix: string): Key => [`${prefix}\u0000`];

export function openEnvironment(dataDir: string): RootDatabase {
  const path = dataLayout(dataDir).indexDb;
  mkdirSync(path, { recursive: true });
  return open({ path, maxDbs: 32, compression: false });
}
