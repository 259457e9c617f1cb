/**
 * Issue 25's freeze through a real server: a Markdown description of 1 MiB of nested, never-closed `<div>`s,
 * uploaded or in an upstream's metadata. The project page answers with the description cut at the cap and
 * shown as escaped text (never sanitized on the main thread), and another version with the same description
 * is answered from the description cache, as `larder_description_renders_total` shows. The JSON API still
 * gives the whole description.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { buildWheel } from '../fixtures/dists.js';
import { basicAuth, type TestLarder } from '../helpers/larder.js';
import { suiteUpstreamBench } from '../helpers/upstream-bench.js';
import { rawGet } from '../helpers/raw-get.js';
import { publish } from '../helpers/upload-form.js';

const HOSTILE = '<div>'.repeat(Math.ceil((1024 * 1024) / 5));
/** Another description, so that the upstream's is not answered from the cache by the uploaded one's. */
const UPSTREAM_HOSTILE = `${HOSTILE}\n`;
const MARKDOWN = { 'Description-Content-Type': 'text/markdown' };

async function renders(url: string): Promise<Record<string, number>> {
  const text = (await rawGet(`${url}/metrics`)).body.toString('utf8');
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^larder_description_renders_total\{outcome="(\w+)"\} (\d+)$/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
}

async function projectPage(url: string, path: string): Promise<string> {
  const res = await fetch(`${url}${path}`);
  assert.equal(res.status, 200);
  return res.text();
}

function assertCut(html: string, length: string): void {
  assert.ok(html.includes(`<p class="notice" role="note">This description is ${length} characters long: only its first 524,288 are shown, as plain text.</p>`));
  const shown = /<pre class="description-text">([^<]*)<\/pre>/.exec(html)?.[1] ?? '';
  assert.ok(shown.startsWith('&lt;div&gt;&lt;div&gt;'), 'escaped, not markup');
  assert.equal(shown.split('&lt;div&gt;').length - 1, Math.floor((512 * 1024) / 5));
  assert.doesNotMatch(html.slice(html.indexOf('id="desc-h"')), /<div><div>/);
}

describe('a 1 MiB description of nested unclosed <div>s', () => {
  const bench = suiteUpstreamBench('larder-hostile-description-', { upstreamRetries: 0 });
  let dir: string;
  let server: TestLarder;

  before(async () => {
    dir = bench.dir;
    const upstreamWheels = await Promise.all(
      ['1.0', '1.1'].map((version) => buildWheel(dir, { name: 'freeze-up', version, description: UPSTREAM_HOSTILE, extraMetadata: MARKDOWN })),
    );
    bench.up.addProject('freeze-up', upstreamWheels);
    server = await bench.larder();
    await server.addUser('alice', 'alice-password');
    for (const version of ['1.0', '1.1']) {
      const wheel = await buildWheel(dir, { name: 'freeze-own', version });
      await publish(server.url, basicAuth('alice', 'alice-password'), wheel, { description: HOSTILE, description_content_type: 'text/markdown' });
    }
  });

  test('uploaded: the page shows it cut and escaped; the other version with the same description comes from the cache', async () => {
    const before = await renders(server.url);
    assertCut(await projectPage(server.url, '/project/freeze-own/1.0/'), '1,048,580');
    assert.deepEqual(await renders(server.url), { ...before, too_large: (before.too_large ?? 0) + 1 });
    assertCut(await projectPage(server.url, '/project/freeze-own/'), '1,048,580');
    assert.deepEqual(await renders(server.url), { ...before, too_large: (before.too_large ?? 0) + 1, cached: (before.cached ?? 0) + 1 });
  });

  test("from the upstream's metadata: the same, and the JSON API still gives all of it", async () => {
    const before = await renders(server.url);
    assertCut(await projectPage(server.url, '/project/freeze-up/1.0/'), '1,048,581');
    assertCut(await projectPage(server.url, '/project/freeze-up/'), '1,048,581');
    assert.deepEqual(await renders(server.url), { ...before, too_large: before.too_large! + 1, cached: before.cached! + 1 });
    const doc = (await (await fetch(`${server.url}/pypi/freeze-up/json`)).json()) as { info: { description: string; description_content_type: string } };
    assert.equal(doc.info.description, UPSTREAM_HOSTILE);
    assert.equal(doc.info.description_content_type, 'text/markdown');
  });

  test('a Markdown description under the cap is rendered on the worker and sanitized', async () => {
    await publish(server.url, basicAuth('alice', 'alice-password'), await buildWheel(dir, { name: 'fine-own', version: '1.0' }), {
      description: '# Fine\n\n<img src=x onerror="alert(1)">',
      description_content_type: 'text/markdown',
    });
    const before = await renders(server.url);
    const html = await projectPage(server.url, '/project/fine-own/');
    assert.match(html, /<h1>Fine<\/h1>/);
    assert.doesNotMatch(html, /onerror/);
    assert.equal((await renders(server.url)).rendered, (before.rendered ?? 0) + 1);
  });
});
