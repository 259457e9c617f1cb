/** The rendered-document cache: a large document rendered a piece at a time, once, and its gzip form made off the main thread. */
import { turnCounter } from '../helpers/turn-counter.js';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { strongEtag } from '../../src/http/etag.js';
import { RenderedCache } from '../../src/http/rendered-cache.js';

/** `count` pieces, noting which has been made. */
function pieces(count: number, made: number[]): Iterable<string> {
  return (function* () {
    for (let i = 0; i < count; i++) {
      made.push(i);
      yield `${i === 0 ? '[' : ','}"piece ${i} é"`;
    }
    yield ']\n';
  })();
}

describe('RenderedCache.getInPieces', () => {
  test('each piece is made in a turn of the event loop of its own; the body and ETag are those of the whole', async () => {
    const cache = new RenderedCache(1 << 20);
    const made: number[] = [];
    const turnsAt: number[] = [];
    const counter = turnCounter();
    const rendered = await cache.getInPieces('doc', {}, () => ({
      pieces: (function* () {
        for (const piece of pieces(20, made)) {
          turnsAt.push(counter.turns());
          yield piece;
        }
      })(),
      contentType: 'application/json',
      serial: 3,
    }));
    counter.stop();
    const whole = `${JSON.stringify(Array.from({ length: 20 }, (_, i) => `piece ${i} é`))}\n`;
    assert.equal(rendered.body.toString('utf8'), whole);
    assert.equal(rendered.etag, strongEtag(Buffer.from(whole)));
    assert.equal(rendered.serial, 3);
    // Other work ran between every two pieces.
    for (let i = 1; i < turnsAt.length; i++) assert.ok(turnsAt[i]! > turnsAt[i - 1]!, `turns seen by each piece: ${turnsAt.join(' ')}`);
  });

  test('requests for the same document while it renders share the one rendering; it is then kept', async () => {
    const cache = new RenderedCache(1 << 20);
    const source = {};
    let renders = 0;
    const render = () => {
      renders++;
      return { pieces: pieces(10, []), contentType: 'application/json', serial: 1 };
    };
    const [one, two] = await Promise.all([cache.getInPieces('doc', source, render), cache.getInPieces('doc', source, render)]);
    assert.equal(one, two);
    assert.equal(await cache.getInPieces('doc', source, render), one);
    assert.equal(renders, 1);
    // A new source (a changed page) is rendered again.
    assert.notEqual(await cache.getInPieces('doc', {}, render), one);
    assert.equal(renders, 2);
  });

  test('a failing render fails its requests and is not kept', async () => {
    const cache = new RenderedCache(1 << 20);
    const source = {};
    const failing = () => {
      throw new Error('no such release');
    };
    await assert.rejects(cache.getInPieces('doc', source, failing), /no such release/);
    const rendered = await cache.getInPieces('doc', source, () => ({ pieces: ['{}\n'], contentType: 'application/json', serial: 1 }));
    assert.equal(rendered.body.toString(), '{}\n');
  });
});

describe('RenderedCache.gzipAhead', () => {
  test('the gzip form is made while the event loop runs, then served without compressing again', async () => {
    const cache = new RenderedCache(64 << 20);
    const body = JSON.stringify(Array.from({ length: 200_000 }, (_, i) => ({ i, name: `release ${i}` })));
    const rendered = cache.get('doc', {}, () => ({ body, contentType: 'application/json', serial: 1 }));
    const counter = turnCounter();
    await cache.gzipAhead('doc', rendered);
    counter.stop();
    assert.ok(counter.turns() > 0, 'the event loop turned while the body was compressed');
    const zipped = rendered.gzip!;
    assert.equal(gunzipSync(zipped).toString('utf8'), body);
    assert.equal(cache.gzip('doc', rendered), zipped);
  });
});
