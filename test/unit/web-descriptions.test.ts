/**
 * Descriptions on the project pages: Markdown rendered on the description worker (a real worker thread)
 * under a time limit, text shown escaped, the length cap, and the cache by content. The time limit is
 * fired by the test (an injected deadline), never waited for.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { DescriptionThread, type DescriptionThreadOptions } from '../../src/web/description-thread.js';
import { DESCRIPTION_MAX_CHARS, type DescriptionOutcome, Descriptions } from '../../src/web/descriptions.js';

const MARKDOWN = 'text/markdown; charset=UTF-8; variant=GFM';
/** The freeze of issue 25: nested `<div>`s never closed, whose sanitizing grows faster than linearly. */
const nestedDivs = (chars: number) => '<div>'.repeat(Math.ceil(chars / 5));

const threads: DescriptionThread[] = [];
after(async () => {
  await Promise.all(threads.map((thread) => thread.close()));
});

function setUp(options: DescriptionThreadOptions = {}, maxChars?: number) {
  const thread = new DescriptionThread(options);
  threads.push(thread);
  const outcomes: DescriptionOutcome[] = [];
  const descriptions = new Descriptions(thread, { maxChars, counted: (outcome) => outcomes.push(outcome) });
  return { thread, descriptions, outcomes };
}

/** A deadline that expires the first job it is armed for at once (before the worker can answer), and no other. */
function expireFirst(): DescriptionThreadOptions['deadline'] {
  let armed = 0;
  return (_ms, expire) => {
    if (++armed === 1) queueMicrotask(expire);
    return () => {};
  };
}

describe('descriptions', () => {
  test('Markdown is rendered on the worker once; the same text again, under any Markdown content type, comes from the cache', async () => {
    const { thread, descriptions, outcomes } = setUp();
    const text = '# Acme\n\n<script>alert(1)</script>\n\n[docs](https://example.test/docs)';
    const [html, concurrent] = await Promise.all([descriptions.html(text, MARKDOWN), descriptions.html(text, MARKDOWN)]);
    assert.match(html, /<h1>Acme<\/h1>/);
    assert.doesNotMatch(html, /<script/);
    assert.match(html, /rel="nofollow noopener noreferrer"/);
    assert.equal(concurrent, html);
    assert.equal(await descriptions.html(text, 'text/markdown'), html);
    assert.deepEqual(outcomes, ['rendered', 'cached']);
    assert.equal(thread.workersStarted, 1);
  });

  test('a worker left without descriptions is stopped when its idle time runs out, and the next description starts one again', async () => {
    const stops: (() => void)[] = [];
    const idle = (_ms: number, stop: () => void) => {
      stops.push(stop);
      return () => {};
    };
    const { thread, descriptions, outcomes } = setUp({ idle });
    assert.match(await descriptions.html('*one*', MARKDOWN), /<em>one<\/em>/);
    assert.match(await descriptions.html('*two*', MARKDOWN), /<em>two<\/em>/);
    assert.equal(thread.workersStarted, 1, 'kept while descriptions come');
    assert.ok(stops.length > 0, 'idle stop armed once the queue is empty');
    stops.at(-1)!();
    assert.match(await descriptions.html('*three*', MARKDOWN), /<em>three<\/em>/);
    assert.deepEqual(outcomes, ['rendered', 'rendered', 'rendered']);
    assert.equal(thread.workersStarted, 2);
  });

  test('reStructuredText, plain text and no content type are escaped preformatted text, made without the worker', async () => {
    const { thread, descriptions, outcomes } = setUp();
    for (const type of ['text/x-rst', 'text/plain', null]) {
      assert.equal(
        await descriptions.html(`Title ${type}\n=====\n\n<script>alert(1)</script>`, type),
        `<pre class="description-text">Title ${type}\n=====\n\n&lt;script&gt;alert(1)&lt;/script&gt;</pre>`,
      );
    }
    assert.deepEqual(outcomes, ['text', 'text', 'text']);
    assert.equal(thread.workersStarted, 0);
  });

  test('no description renders nothing', async () => {
    const { descriptions, outcomes } = setUp();
    assert.equal(await descriptions.html(null, 'text/markdown'), '');
    assert.equal(await descriptions.html('  \n', 'text/markdown'), '');
    assert.deepEqual(outcomes, []);
  });

  test('a description over the cap is shown as escaped text, cut at the cap with a note, without the worker; then from the cache', async () => {
    const { thread, descriptions, outcomes } = setUp();
    const hostile = nestedDivs(1024 * 1024);
    const html = await descriptions.html(hostile, MARKDOWN);
    assert.match(
      html,
      /^<p class="notice" role="note">This description is 1,048,580 characters long: only its first 524,288 are shown, as plain text\.<\/p>\n<pre class="description-text">(&lt;div&gt;)+&lt;di<\/pre>$/,
    );
    const shown = html.slice(html.indexOf('<pre'));
    assert.equal(shown.split('&lt;div&gt;').length - 1, Math.floor(DESCRIPTION_MAX_CHARS / 5), 'the first 512 KiB only');
    assert.equal(await descriptions.html(hostile, MARKDOWN), html);
    // Only what comes before the cap is hashed: what follows it is not shown.
    assert.equal(await descriptions.html(`${hostile.slice(0, -1)}x`, MARKDOWN), html);
    assert.deepEqual(outcomes, ['too_large', 'cached', 'cached']);
    assert.equal(thread.workersStarted, 0);
  });

  test('the cut never splits a character outside the Basic Multilingual Plane', async () => {
    const { descriptions } = setUp({}, 4);
    const html = await descriptions.html('abc\u{1F600}def', 'text/plain');
    assert.match(html, /<pre class="description-text">abc<\/pre>$/);
  });

  test('a job over the time limit: escaped text with a note, kept in the cache; the next job gets a fresh worker', async () => {
    const { thread, descriptions, outcomes } = setUp({ deadline: expireFirst() });
    const hostile = nestedDivs(256 * 1024);
    const html = await descriptions.html(hostile, MARKDOWN);
    assert.match(
      html,
      /^<p class="notice" role="note">This description took too long to render as Markdown; it is shown as plain text\.<\/p>\n<pre class="description-text">&lt;div&gt;/,
    );
    assert.equal(await descriptions.html(hostile, MARKDOWN), html);
    assert.match(await descriptions.html('*fine*', MARKDOWN), /<em>fine<\/em>/);
    assert.deepEqual(outcomes, ['timeout', 'cached', 'rendered']);
    assert.equal(thread.workersStarted, 2);
  });

  test('with the queue full a description is shown as text at once, and not kept: the next view renders it', async () => {
    const { descriptions, outcomes } = setUp({ maxQueue: 1 });
    // The first waits for the worker to start; the second finds the one place taken.
    const [first, second] = await Promise.all([descriptions.html('*one*', MARKDOWN), descriptions.html('*two*', MARKDOWN)]);
    assert.match(first, /<em>one<\/em>/);
    assert.match(second, /^<p class="notice" role="note">Many descriptions are being rendered at the moment/);
    assert.match(second, /<pre class="description-text">\*two\*<\/pre>$/);
    assert.match(await descriptions.html('*two*', MARKDOWN), /<em>two<\/em>/);
    assert.deepEqual(outcomes, ['busy', 'rendered', 'rendered']);
  });

  test('a closed thread answers at once: shown as text, not kept', async () => {
    const { thread, descriptions, outcomes } = setUp();
    await thread.close();
    assert.match(await descriptions.html('*late*', MARKDOWN), /<pre class="description-text">\*late\*<\/pre>$/);
    assert.deepEqual(outcomes, ['closed']);
  });

  test('a worker that dies at a job: that description is shown as text, the death is told, and the next job gets a new worker', async () => {
    const failures: string[] = [];
    const workerUrl = new URL('../fixtures/description-workers/dies-on-job.ts', import.meta.url);
    const { thread, descriptions, outcomes } = setUp({ workerUrl, onWorkerFailure: (err) => failures.push(err.message) });
    const html = await descriptions.html('*one*', MARKDOWN);
    assert.match(
      html,
      /^<p class="notice" role="note">This description could not be rendered as Markdown; it is shown as plain text\.<\/p>\n<pre class="description-text">\*one\*<\/pre>$/,
    );
    assert.equal(await descriptions.html('*one*', MARKDOWN), html);
    await descriptions.html('*two*', MARKDOWN);
    assert.deepEqual(outcomes, ['failed', 'cached', 'failed']);
    assert.deepEqual(failures, ['the description worker stopped (exit code 3)', 'the description worker stopped (exit code 3)']);
    assert.equal(thread.workersStarted, 2);
  });

  test('a worker that cannot start: what waits for it is shown as text, not kept, and the failure is told once', async () => {
    const failures: string[] = [];
    const workerUrl = new URL('../fixtures/description-workers/broken.ts', import.meta.url);
    const { thread, descriptions, outcomes } = setUp({ workerUrl, onWorkerFailure: (err) => failures.push(err.message) });
    const pages = await Promise.all(['*one*', '*two*', '*three*'].map((text) => descriptions.html(text, MARKDOWN)));
    assert.ok(pages.every((html) => html.includes('Descriptions cannot be rendered at the moment')));
    assert.deepEqual(outcomes, ['unavailable', 'unavailable', 'unavailable']);
    assert.deepEqual(failures, ['the description worker cannot load']);
    assert.equal(thread.workersStarted, 1);
    await descriptions.html('*one*', MARKDOWN);
    assert.deepEqual(outcomes.at(-1), 'unavailable', 'tried again, not taken from the cache');
    assert.equal(thread.workersStarted, 2);
  });

  test('a worker that never says it is ready is stopped after the start limit, and what waits is shown as text', async () => {
    const failures: string[] = [];
    const workerUrl = new URL('../fixtures/description-workers/never-ready.ts', import.meta.url);
    const { descriptions, outcomes } = setUp({ workerUrl, startLimitMs: 50, onWorkerFailure: (err) => failures.push(err.message) });
    assert.match(await descriptions.html('*one*', MARKDOWN), /cannot be rendered at the moment/);
    assert.deepEqual(outcomes, ['unavailable']);
    assert.deepEqual(failures, ['the description worker did not start within 0.05 s']);
  });
});
