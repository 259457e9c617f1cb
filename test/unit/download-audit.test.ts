/**
 * The download audit's buffer over a real LMDB audit store that can be made to refuse writes: batches,
 * the bound while the store is down (dropped and counted, one log line per burst), the records kept
 * across a failed write, the flush at close, and pruning as the clock moves; the query of `audit fetched`
 * over more records than one page.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { AuditMetrics } from '../../src/audit/audit-metrics.js';
import { DownloadAudit, type ServedDownload } from '../../src/audit/download-audit.js';
import { fetched, parseFetchedRequirement } from '../../src/audit/fetched-query.js';
import type { RootDatabase } from 'lmdb';
import type { AuditStore } from '../../src/store/audit-store.js';
import { openEnvironment } from '../../src/store/lmdb/environment.js';
import { LmdbAuditStore } from '../../src/store/lmdb/lmdb-audit-store.js';
import { ManualClock } from '../helpers/manual-clock.js';

const DAY = 86_400_000;

/** Times are after 2026-01-01 (the clock's start), so that nothing is older than the retention unless a test says so. */
const T0 = Date.UTC(2026, 0, 1);

function served(at: number, filename = 'demo-1.0-py3-none-any.whl'): ServedDownload {
  return { at: at < T0 ? T0 + at : at, client: '192.0.2.1', user: 'anonymous', token: null, project: 'demo', filename, sha256: null };
}

describe('download audit buffer', () => {
  let dir: string;
  let root: RootDatabase;
  let store: LmdbAuditStore;
  let broken = false;
  let writes = 0;
  const failing: AuditStore = {
    append: (records) => {
      writes += 1;
      return broken ? Promise.reject(new Error('no space left on device')) : store.append(records);
    },
    downloads: (query) => store.downloads(query),
    prune: (before) => store.prune(before),
  };
  const all = () => store.downloads({ since: 0, limit: 100_000 });

  function audit(clock = new ManualClock(), options: { maxPending?: number; batchSize?: number } = {}) {
    const logs: { level: number; msg: string; lost?: number }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) });
    const registry = new Registry();
    let made: DownloadAudit | null = null;
    const metrics = new AuditMetrics(registry, logger, () => made?.pendingCount() ?? 0);
    made = new DownloadAudit(failing, clock, metrics, { retentionMs: 90 * DAY, flushMs: 60_000, ...options });
    const counter = async (name: string) =>
      (await registry.getSingleMetricAsString(name))
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('#'));
    return { audit: made, logs, counter, clock };
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-audit-unit-'));
    root = openEnvironment(dir);
    store = new LmdbAuditStore(root);
  });
  after(async () => {
    await root.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('records wait for the flush, with the version read from the file name; a full batch is written at once', async () => {
    const { audit: a, counter } = audit(new ManualClock(), { batchSize: 3 });
    a.record(served(1));
    a.record(served(2, 'demo-2.0.tar.gz'));
    assert.equal((await all()).length, 0);
    assert.equal(a.pendingCount(), 2);
    const before = writes;
    a.record(served(3));
    assert.equal(writes, before + 1, 'the third record started a write without waiting for the timer');
    await a.flush();
    assert.deepEqual(
      (await all()).map((r) => [r.at - T0, r.version]),
      [
        [1, '1.0'],
        [2, '2.0'],
        [3, '1.0'],
      ],
    );
    assert.deepEqual(await counter('larder_audit_records_total'), ['larder_audit_records_total 3']);
    await a.close();
  });

  test('while the store refuses writes: records are kept up to the bound, the rest dropped and counted, one log line per burst', async () => {
    await store.prune(Number.MAX_SAFE_INTEGER);
    const { audit: a, logs, counter } = audit(new ManualClock(), { maxPending: 5, batchSize: 100 });
    broken = true;
    for (let i = 0; i < 4; i++) a.record(served(10 + i));
    await a.flush();
    await a.flush();
    assert.equal(a.pendingCount(), 4, 'kept for the next write');
    for (let i = 0; i < 3; i++) a.record(served(20 + i));
    assert.equal(a.pendingCount(), 5);
    await a.flush();
    assert.deepEqual(await counter('larder_audit_lost_total'), [
      'larder_audit_lost_total{reason="buffer_full"} 2',
      'larder_audit_lost_total{reason="store_failed"} 0',
    ]);
    assert.deepEqual(
      logs.filter((l) => l.level >= 40).map((l) => l.msg.split(';')[0]),
      ['download audit: the records cannot be written'],
    );
    assert.deepEqual(await counter('larder_audit_pending_records'), ['larder_audit_pending_records 5']);

    broken = false;
    await a.close();
    assert.deepEqual(
      (await all()).map((r) => r.at - T0),
      [10, 11, 12, 13, 20],
    );
    const recovered = logs.filter((l) => l.level >= 40).at(-1)!;
    assert.equal(recovered.msg, 'download audit: the records are written again; 2 were lost meanwhile');
    assert.equal(recovered.lost, 2);
    a.record(served(99));
    assert.equal(a.pendingCount(), 0, 'after close nothing is taken');
  });

  test('records older than the retention are pruned at a write once the clock says a pruning is due (hourly)', async () => {
    await store.prune(Number.MAX_SAFE_INTEGER);
    const HOUR = 3_600_000;
    const clock = new ManualClock(T0);
    const { audit: a } = audit(clock);
    a.record(served(clock.now()));
    await a.flush();
    clock.advance(90 * DAY - 2 * HOUR);
    a.record(served(clock.now()));
    await a.flush();
    assert.equal((await all()).length, 2, 'not older than 90 days yet');
    clock.advance(2 * HOUR + 1);
    a.record(served(clock.now()));
    await a.flush();
    assert.deepEqual(
      (await all()).map((r) => r.at - T0),
      [90 * DAY - 2 * HOUR, 90 * DAY + 1],
    );
    await a.close();
  });
});

describe('audit fetched query', () => {
  let dir: string;
  let root: RootDatabase;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-audit-query-'));
    root = openEnvironment(dir);
  });
  after(async () => {
    await root.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('reads every match page by page, records of one millisecond across a page boundary included, oldest first', async () => {
    const store = new LmdbAuditStore(root);
    const records = Array.from({ length: 12_000 }, (_, i) => ({
      ...served(T0 + Math.floor(i / 7), `demo-${i % 3}.0-py3-none-any.whl`),
      version: `${i % 3}.0`,
    }));
    await store.append(records);
    await store.append([{ ...served(T0, 'other-1.0-py3-none-any.whl'), project: 'other', version: '1.0' }]);
    const found = await fetched(store, parseFetchedRequirement('Demo>=1'), 0);
    assert.equal(found.length, 8000);
    assert.ok(found.every((r, i) => r.project === 'demo' && r.version !== '0.0' && (i === 0 || r.at >= found[i - 1]!.at)));
    assert.equal((await fetched(store, parseFetchedRequirement('demo'), T0 + 1000)).length, 12_000 - 7000);
  });
});
