/**
 * A large project page (up to the 200,000 links a page may list, docs/security.md "Limits on untrusted
 * content") is rendered a slice of files at a time with the event loop running between slices, into the
 * very bytes a one-piece rendering gives.
 */
import { turnCounter } from '../helpers/turn-counter.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { HttpDeps } from '../../src/http/deps.js';
import { RenderedCache } from '../../src/http/rendered-cache.js';
import { PAGE_FILES_PER_PIECE, projectPageAnswer } from '../../src/http/routes/simple.js';
import { projectHtmlPieces, renderProjectHtml } from '../../src/render/simple-html.js';
import { projectJsonPieces, renderProjectJson } from '../../src/render/simple-json.js';
import { FROM_PROJECT_PAGE } from '../../src/render/urls.js';
import { fileEntry, projectPage, SHA } from '../helpers/model-builders.js';

function page(count: number) {
  const files = Array.from({ length: count }, (_, i) =>
    fileEntry(`big-1.${i % 7}.${i}.tar.gz`, {
      version: `1.${i % 7}.${i}`,
      hashes: { sha256: SHA },
      requiresPython: i % 3 === 0 ? '>=3.8' : null,
      yanked: i % 5 === 0,
      yankedReason: i % 10 === 0 ? 'bad "build" <x>' : null,
      size: i % 2 === 0 ? 1000 + i : null,
    }),
  );
  return projectPage(files, { name: 'big' as never, displayName: 'big' });
}

test('the pieces of a page, in slices of any size, join into the one-piece rendering (HTML and JSON)', () => {
  const p = page(23);
  for (const perPiece of [1, 2, 7, 23, 100]) {
    assert.equal([...projectHtmlPieces(p, FROM_PROJECT_PAGE, perPiece)].join(''), renderProjectHtml(p, FROM_PROJECT_PAGE));
    assert.equal([...projectJsonPieces(p, FROM_PROJECT_PAGE, perPiece)].join(''), renderProjectJson(p, FROM_PROJECT_PAGE));
  }
  const empty = page(0);
  assert.equal([...projectJsonPieces(empty, FROM_PROJECT_PAGE, 2)].join(''), renderProjectJson(empty, FROM_PROJECT_PAGE));
  assert.deepEqual(JSON.parse(renderProjectJson(empty, FROM_PROJECT_PAGE)).files, []);
});

test('a page of more files than a slice is answered after several turns of the event loop, with the bytes of one rendering', async () => {
  const p = page(PAGE_FILES_PER_PIECE * 4 + 1);
  const deps = { config: { publicUrl: null }, rendered: new RenderedCache(64 << 20) } as unknown as HttpDeps;
  const counter = turnCounter();
  const request = { acceptEncoding: 'gzip', ifNoneMatch: undefined, provenance: {} };
  const html = await projectPageAnswer(deps, p, { format: 'html', contentType: 'text/html; charset=utf-8' } as never, request);
  counter.stop();
  const turns = counter.turns();
  assert.ok(turns >= 5, `turns of the event loop while rendering: ${turns}`);
  assert.equal(html.status, 200);
  assert.equal(gunzipSync(html.body as Buffer).toString(), renderProjectHtml(p, FROM_PROJECT_PAGE));
  const json = await projectPageAnswer(deps, p, { format: 'json', contentType: 'application/vnd.pypi.simple.v1+json' } as never, {
    ...request,
    acceptEncoding: undefined,
  });
  assert.equal((json.body as Buffer).toString(), renderProjectJson(p, FROM_PROJECT_PAGE));
});
