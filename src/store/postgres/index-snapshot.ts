/**
 * `readSnapshot`: every record of the private index as of one moment, read in one `REPEATABLE READ READ
 * ONLY` transaction a page at a time (no writer waits for it, and it never holds a whole table).
 */
import type { IndexSnapshot } from '../index-store.js';
import type { PgDatabase } from './database.js';
import { pages, type Run } from './index-reads.js';
import { allowedOf, changeOf, deletedOf, fileOf, projectOf, releaseOf, tokenOf, userOf } from './rows.js';

export async function readSnapshot<T>(db: PgDatabase, fn: (snapshot: IndexSnapshot) => Promise<T>): Promise<T> {
  try {
    return await db.transaction((tx) => {
      const run: Run = (_operation, read) => read(tx);
      return fn({
        projects: () => pages(run, 'projects', ['name'], projectOf),
        releases: () => pages(run, 'releases', ['project', 'version'], releaseOf),
        files: () => pages(run, 'files', ['project', 'filename'], fileOf),
        deletedFilenames: () => pages(run, 'deleted_files', ['project', 'filename'], deletedOf),
        allowedNames: () => pages(run, 'allowed_names', ['name'], allowedOf),
        users: () => pages(run, 'users', ['name'], userOf),
        tokens: () => pages(run, 'tokens', ['hash'], tokenOf),
        changelog: () => pages(run, 'changelog', ['serial'], changeOf, false),
      });
    }, 'ISOLATION LEVEL REPEATABLE READ READ ONLY');
  } catch (err) {
    throw db.unavailable(err);
  }
}
