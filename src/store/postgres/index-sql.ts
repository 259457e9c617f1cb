/**
 * The steps of the private index's writes, inside a write transaction. A change takes its serial from the
 * sequence `serials` while it holds its project's row lock, so the serials of one project grow in the order
 * its changes commit; changes of different projects never wait for each other.
 */
import type { ChangeAction } from '../records.js';
import { type Queryable, type Row, select } from './database.js';
import { changeRow } from './rows.js';

/** The project's row, locked until the transaction ends (undefined: no such project). */
export async function lockProject(tx: Queryable, name: string): Promise<Row | undefined> {
  const [row] = await select(tx, 'SELECT * FROM projects WHERE name = $1 FOR UPDATE', [name]);
  return row;
}

/**
 * Takes the next serial, records what changed under it, and makes it the project's serial, in one
 * statement. The caller holds the project's row lock (`lockProject`, or the row it inserted).
 */
export async function recordChange(
  tx: Queryable,
  change: { project: string; action: ChangeAction; user: string | null; time: string; version?: string | null; filename?: string | null },
): Promise<number> {
  const { table, row } = changeRow({ serial: 0, version: null, filename: null, ...change });
  const { serial: _, ...rest } = row;
  const columns = Object.keys(rest);
  const [taken] = await select(
    tx,
    `WITH s AS (SELECT nextval('serials') AS serial),
       logged AS (INSERT INTO ${table} (serial, ${columns.join(', ')}) SELECT serial, ${columns.map((_, i) => `$${i + 1}`).join(', ')} FROM s),
       moved AS (UPDATE projects SET serial = s.serial FROM s WHERE name = $${columns.length + 1})
     SELECT serial FROM s`,
    [...Object.values(rest), change.project],
  );
  return Number(taken!.serial);
}
