/** test/shard-plan.ts: shards of about equal running time, every file in exactly one; weights from JUnit reports. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { junitSeconds, planShards } from '../shard-plan.js';

test('the longest files go to different shards, the rest fill up the lightest; every file once; unknown files count as the median', () => {
  const weights = { 'a.test.ts': 90, 'b.test.ts': 50, 'c.test.ts': 35, 'd.test.ts': 10, 'e.test.ts': 10, 'f.test.ts': 5 };
  const files = ['./f.test.ts', 'e.test.ts', 'd.test.ts', 'c.test.ts', 'b.test.ts', 'a.test.ts', 'new.test.ts'];
  const plan = planShards(files, 3, weights);
  // By position (Node's --test-shard) d and a would share a shard: 100 s against 60 s; here 90, 75 and 70 s.
  assert.deepEqual(plan, [['a.test.ts'], ['./f.test.ts', 'b.test.ts', 'd.test.ts', 'e.test.ts'], ['c.test.ts', 'new.test.ts']]);
  assert.deepEqual(plan.flat().sort(), [...files].sort());
  assert.deepEqual(planShards(['x.test.ts'], 3, {}), [['x.test.ts'], [], []]);
});

test("a JUnit report's time per file: top-level suites and tests, hooks included, credited to their .test.ts file", () => {
  const xml = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<testsuites>',
    '\t<testsuite name="server" time="4.5" tests="2">',
    '\t\t<testcase name="a > b" time="1.0" file="/r/test/helpers/contract.ts"/>',
    '\t\t<testsuite name="inner" time="1.5"><testcase name="c" time="1.5" file="/r/test/unit/a.test.ts"/></testsuite>',
    '\t</testsuite>',
    '\t<testcase name="alone" time="0.5" file="/r/test/unit/a.test.ts"/>',
    '\t<testcase name="failed" time="2.0" file="/r/test/unit/b.test.ts">',
    '\t\t<failure type="testCodeFailure" message="x"/>',
    '\t</testcase>',
    '\t<testsuite name="from a helper only" time="3.0"><testcase name="d" time="3.0" file="/r/test/helpers/contract.ts"/></testsuite>',
    '</testsuites>',
  ].join('\n');
  assert.deepEqual(
    [...junitSeconds(xml)],
    [
      ['/r/test/unit/a.test.ts', 5],
      ['/r/test/unit/b.test.ts', 2],
      ['/r/test/helpers/contract.ts', 3],
    ],
  );
});
