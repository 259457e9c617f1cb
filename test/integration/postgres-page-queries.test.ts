/**
 * The read path of a private project on PostgreSQL, counted where an operator counts it (`/metrics`,
 * `larder_backend_request_duration_seconds_count{backend="database"}`): a node answering a project's
 * pip page, JSON API document, file and web page asks the database a small fixed number of queries the
 * first time and none while it has the project cached; a change made through another node empties its
 * cache (NOTIFY), and the next read asks again.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { eventually } from '../helpers/eventually.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { publish } from '../helpers/upload-form.js';

let dir: string;
let database: TestPostgres;
let a: TestLarder;
let b: TestLarder;
let alice: string;
let first: BuiltDist;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-pg-queries-'));
  database = await startPostgres();
  const url = await database.createDatabase();
  a = await startLarder({ databaseUrl: url }, join(dir, 'a'));
  b = await startLarder({ databaseUrl: url }, join(dir, 'b'));
  await a.addUser('alice', 'alice-password-1');
  alice = basicAuth('__token__', await a.addToken('alice'));
  first = await buildWheel(join(dir, 'dists'), { name: 'counted', version: '1.0' });
  await publish(a.url, alice, first);
});

after(async () => {
  await a?.close();
  await b?.close();
  await database?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

/** Database operations the node has made so far, by operation. */
async function databaseCalls(on: TestLarder): Promise<Map<string, number>> {
  const text = await (await fetch(`${on.url}/metrics`)).text();
  const calls = new Map<string, number>();
  for (const [, operation, count] of text.matchAll(/^larder_backend_request_duration_seconds_count\{backend="database",operation="([^"]+)"\} (\d+)$/gm)) {
    calls.set(operation!, Number(count));
  }
  return calls;
}

const minus = (after: Map<string, number>, before: Map<string, number>) =>
  new Map([...after].map(([operation, count]) => [operation, count - (before.get(operation) ?? 0)] as const));

/** The operations `read` made on the node, by name, less those a scrape of /metrics makes itself (the private and cached totals). */
async function callsOf(on: TestLarder, read: () => Promise<void>): Promise<Record<string, number>> {
  const start = await databaseCalls(on);
  const scraped = await databaseCalls(on);
  const scrape = minus(scraped, start);
  await read();
  const made: Record<string, number> = {};
  for (const [operation, count] of minus(await databaseCalls(on), scraped)) {
    const byRead = count - (scrape.get(operation) ?? 0);
    if (byRead > 0) made[operation] = byRead;
  }
  return made;
}

/** Uncached: the project with everything under it in one query, and the last serial unless a write on this node just read it. */
function assertUncached(made: Record<string, number>): void {
  assert.equal(made['read-project'], 1, JSON.stringify(made));
  assert.deepEqual(
    Object.keys(made).filter((operation) => !['read-project', 'last-serial'].includes(operation)),
    [],
    JSON.stringify(made),
  );
  assert.ok((made['last-serial'] ?? 0) <= 1, JSON.stringify(made));
}

const get = async (on: TestLarder, path: string) => {
  const res = await fetch(`${on.url}${path}`);
  assert.equal(res.status, 200, path);
  await res.arrayBuffer();
};

/** What a client reads of one project: pip's page, the JSON API, the web page and (where the node has the blobs) the file. */
const readProject = (on: TestLarder, dist: BuiltDist | null) => async () => {
  await get(on, '/simple/counted/');
  await get(on, '/pypi/counted/json');
  await get(on, '/project/counted/');
  if (dist) await get(on, `/packages/counted/${dist.filename}`);
};

test('a project read on a node that has not cached it costs a few queries; read again, none', async () => {
  assertUncached(await callsOf(a, readProject(a, first)));
  assert.deepEqual(await callsOf(a, readProject(a, first)), {}, 'cached: no query');
  // B has other blobs (a test of one database without a shared bucket): its pages only.
  assertUncached(await callsOf(b, readProject(b, null)));
  assert.deepEqual(await callsOf(b, readProject(b, null)), {});
});

test("an upload through A empties B's cache of the project; B then reads it once again", async () => {
  const second = await buildWheel(join(dir, 'dists'), { name: 'counted', version: '2.0' });
  await publish(a.url, alice, second);
  await eventually(async () => {
    const res = await fetch(`${b.url}/simple/counted/`);
    return (await res.text()).includes(second.filename);
  }, "B's page lists the upload made through A");
  assert.deepEqual(await callsOf(b, readProject(b, null)), {}, 'cached again after one read');
});

test('the private totals of /metrics and of the home page are counted once per change, not per request', async () => {
  const privateFiles = async () => /<dt>Private projects<\/dt><dd>1 \((\d+) files?,/.exec(await (await fetch(`${a.url}/`)).text())?.[1];
  const before = Number(await privateFiles());
  const again = await callsOf(a, async () => {
    await privateFiles();
    await privateFiles();
  });
  assert.equal(again['list-files'], undefined, JSON.stringify(again));
  const scraped = await databaseCalls(a);
  const scrape = minus(await databaseCalls(a), scraped);
  assert.equal(scrape.get('list-files') ?? 0, 0, 'a scrape reads no private file while nothing changed');
  await publish(a.url, alice, await buildWheel(join(dir, 'dists'), { name: 'counted', version: '3.0' }));
  assert.equal(Number(await privateFiles()), before + 1, 'the home page counts the new file');
});
