/** A table of test wheels: one per entry `key: [name, version]`, each built in its own folder `dir/key`. */
import { join } from 'node:path';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';

export async function buildWheelTable<K extends string>(dir: string, table: Record<K, [name: string, version: string]>): Promise<Record<K, BuiltDist>> {
  const wheels = {} as Record<K, BuiltDist>;
  for (const [key, [name, version]] of Object.entries(table) as [K, [string, string]][]) wheels[key] = await buildWheel(join(dir, key), { name, version });
  return wheels;
}
