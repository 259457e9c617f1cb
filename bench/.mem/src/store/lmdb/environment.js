/** The LMDB environment under data/meta: every database of the private index and the upstream cache lives in it. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
/** Upper bound for a prefix range over array keys whose first element is `prefix`. */
export const after = (prefix) => [`${prefix}\u0000`];
export function openEnvironment(dataDir) {
    const path = join(dataDir, 'meta');
    mkdirSync(path, { recursive: true });
    return open({ path, maxDbs: 32, compression: false });
}
