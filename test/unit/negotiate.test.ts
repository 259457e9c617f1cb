import { test } from 'node:test';
import assert from 'node:assert/strict';
import { negotiateSimple, parseAccept } from '../../src/http/negotiate.js';

const V1_JSON = 'application/vnd.pypi.simple.v1+json';
const V1_HTML = 'application/vnd.pypi.simple.v1+html';
const TEXT_HTML = 'text/html; charset=utf-8';

const PIP = 'application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01';
const UV = 'application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01';
const POETRY_PRIVATE = 'application/vnd.pypi.simple.v1+json, */*;q=0.1';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

const negotiate = (accept?: string, format?: string) => negotiateSimple(format, accept);

test('no Accept (or an empty one) → text/html', () => {
  assert.deepEqual(negotiate(undefined), { contentType: TEXT_HTML, format: 'html' });
  assert.deepEqual(negotiate(''), { contentType: TEXT_HTML, format: 'html' });
  assert.deepEqual(negotiate('*/*'), { contentType: TEXT_HTML, format: 'html' });
});

test('pip, uv, unearth and poetry get v1+json', () => {
  for (const accept of [PIP, UV, POETRY_PRIVATE, V1_JSON]) {
    assert.deepEqual(negotiate(accept), { contentType: V1_JSON, format: 'json' }, accept);
  }
});

test('text/html → text/html with charset, HTML body', () => {
  assert.deepEqual(negotiate('text/html'), { contentType: TEXT_HTML, format: 'html' });
  assert.deepEqual(negotiate(BROWSER), { contentType: TEXT_HTML, format: 'html' });
});

test('v1+html → v1+html', () => {
  assert.deepEqual(negotiate(V1_HTML), { contentType: V1_HTML, format: 'html' });
});

test('latest+json → v1+json and latest+html → v1+html (never "latest")', () => {
  assert.deepEqual(negotiate('application/vnd.pypi.simple.latest+json'), { contentType: V1_JSON, format: 'json' });
  assert.deepEqual(negotiate('application/vnd.pypi.simple.latest+html'), { contentType: V1_HTML, format: 'html' });
  assert.deepEqual(negotiate(`${V1_HTML};q=0.5, application/vnd.pypi.simple.latest+json;q=0.6`).contentType, V1_JSON);
});

test('q=0 excludes a type', () => {
  assert.deepEqual(negotiate(`${V1_JSON};q=0, text/html`), { contentType: TEXT_HTML, format: 'html' });
  assert.deepEqual(negotiate(`${V1_JSON};q=0, */*`).format, 'html');
  assert.deepEqual(negotiate(`*/*, text/html;q=0, ${V1_HTML};q=0`), { contentType: V1_JSON, format: 'json' });
});

test('the format parameter overrides Accept and must be one exact simple type', () => {
  assert.deepEqual(negotiate('text/html', V1_JSON), { contentType: V1_JSON, format: 'json' });
  assert.deepEqual(negotiate(PIP, 'text/html'), { contentType: TEXT_HTML, format: 'html' });
  assert.deepEqual(negotiate(PIP, V1_HTML), { contentType: V1_HTML, format: 'html' });
  assert.deepEqual(negotiate('text/html', 'application/vnd.pypi.simple.latest+json'), { contentType: V1_JSON, format: 'json' });
  assert.deepEqual(negotiate(PIP, 'application/vnd.pypi.simple.latest+html'), { contentType: V1_HTML, format: 'html' });
  // Lists, wildcards, q-values and unknown types are ignored; Accept decides.
  for (const format of [`${V1_JSON}, text/html`, '*/*', `${V1_HTML};q=1`, 'application/json', '']) {
    assert.deepEqual(negotiate('text/html', format).contentType, TEXT_HTML, format);
    assert.deepEqual(negotiate(PIP, format).contentType, V1_JSON, format);
  }
});

test('nothing acceptable → text/html, never 406/300', () => {
  for (const accept of ['image/png', 'application/json', `${V1_JSON};q=0, ${V1_HTML};q=0, text/html;q=0`, 'garbage']) {
    assert.deepEqual(negotiate(accept), { contentType: TEXT_HTML, format: 'html' }, accept);
  }
});

test('q-values decide regardless of order; ties go to v1+json, then v1+html, then text/html', () => {
  assert.equal(negotiate(`text/html;q=0.9, ${V1_JSON};q=0.8`).contentType, TEXT_HTML);
  assert.equal(negotiate(`text/html;q=0.5, ${V1_HTML};q=0.6`).contentType, V1_HTML);
  assert.equal(negotiate(`text/html, ${V1_HTML}, ${V1_JSON}`).contentType, V1_JSON);
  assert.equal(negotiate(`text/html, ${V1_HTML}`).contentType, V1_HTML);
});

test('specificity: the most specific range gives an offer its q', () => {
  assert.equal(negotiate(`application/*;q=0.9, ${V1_JSON};q=0.1, text/html;q=0.5`).contentType, V1_HTML);
  assert.equal(negotiate('application/*').contentType, V1_JSON);
  assert.equal(negotiate('text/*').contentType, TEXT_HTML);
  // A type the client named beats one reached only through */* at the same q.
  assert.equal(negotiate('*/*, text/html').contentType, TEXT_HTML);
  assert.equal(negotiate(`*/*, ${V1_HTML}`).contentType, V1_HTML);
});

test('media types and q are read case-insensitively and with spaces; invalid q drops the range', () => {
  assert.equal(negotiate('Application/VND.PyPI.Simple.V1+JSON ; Q=1').contentType, V1_JSON);
  assert.equal(negotiate(`${V1_JSON};q=2, text/html;q=0.5`).contentType, TEXT_HTML);
  assert.equal(negotiate(`${V1_JSON};q=abc`).contentType, TEXT_HTML);
  assert.equal(negotiate(`${V1_JSON};charset=utf-8`).contentType, V1_JSON);
  assert.deepEqual(parseAccept('text/html;level=1;q=0.500, */*;q=0.1, bad'), [
    { type: 'text/html', q: 0.5 },
    { type: '*/*', q: 0.1 },
  ]);
});
