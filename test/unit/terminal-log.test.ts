/**
 * Log lines at a terminal (src/terminal-log.ts through createLogger): one short line per request, expected
 * failures on one line, a bug's stack below its line; JSON lines when the format is json.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LarderError } from '../../src/base/errors.js';
import { loggedError } from '../../src/http/logged-error.js';
import { createLogger, type LogFormat } from '../../src/logger.js';
import { UpstreamError } from '../../src/upstream/upstream-error.js';

const TIME = /^\d{2}:\d{2}:\d{2}\.\d{3} /;

function capture(format: LogFormat, colors = false) {
  let text = '';
  const stream = {
    write(s: string) {
      text += s;
    },
  };
  const logger = createLogger({ logLevel: 'debug' }, stream, { format, colors });
  return { logger, lines: () => text.split('\n').filter(Boolean) };
}

test('a request is one line: time, method, path, status, ms, cache state, and the error code of a failure', () => {
  const { logger, lines } = capture('terminal');
  logger.info({ method: 'GET', path: '/simple/requests/', status: 200, ms: 3.1, cache: 'hit', bytes: 4321 }, 'request');
  logger.info({ method: 'GET', path: '/simple/nope/', status: 502, code: 'upstream_unreachable', ms: 12.9, bytes: 153 }, 'request');
  logger.info({ method: 'GET', path: '/packages/a/a-1.0.tar.gz', status: 200, ms: 40, cache: 'miss', aborted: true }, 'request');
  const [hit, failed, aborted] = lines();
  assert.equal(lines().length, 3);
  assert.match(hit!, TIME);
  assert.equal(hit!.replace(TIME, ''), 'GET /simple/requests/ 200 3.1 ms hit');
  assert.equal(failed!.replace(TIME, ''), 'GET /simple/nope/ 502 12.9 ms upstream_unreachable');
  assert.equal(aborted!.replace(TIME, ''), 'GET /packages/a/a-1.0.tar.gz 200 40 ms miss (closed before the end)');
});

test('an expected failure is one line with its message; a bug keeps its stack below its line', () => {
  const { logger, lines } = capture('terminal');
  const upstreamDown = new LarderError('upstream_unreachable', 'The upstream index http://127.0.0.1:1/simple/ failed for project requests: ECONNREFUSED.');
  logger.error({ err: loggedError(upstreamDown), code: 'upstream_unreachable', method: 'GET', path: '/simple/requests/' }, 'request failed');
  logger.warn({ err: loggedError(new UpstreamError('timed out after 10 s', 'timeout')), what: 'project requests' }, 'upstream failed and nothing is cached');
  const expected = lines();
  assert.equal(expected.length, 2, expected.join('\n'));
  assert.equal(
    expected[0]!.replace(TIME, ''),
    'ERROR request failed: The upstream index http://127.0.0.1:1/simple/ failed for project requests: ECONNREFUSED.  code=upstream_unreachable method=GET path=/simple/requests/',
  );
  assert.equal(expected[1]!.replace(TIME, ''), 'WARN upstream failed and nothing is cached: timed out after 10 s  what="project requests"');

  const bug = capture('terminal');
  const err = new TypeError("Cannot read properties of undefined (reading 'files')");
  bug.logger.error({ err: loggedError(err), method: 'GET', path: '/simple/x/' }, 'request failed');
  const [head, ...stack] = bug.lines();
  assert.equal(head!.replace(TIME, ''), "ERROR request failed: Cannot read properties of undefined (reading 'files')  method=GET path=/simple/x/");
  assert.ok(stack.length > 0, 'the stack follows');
  for (const line of stack) assert.match(line, /^ {13}at /);
});

test('a message of several lines keeps them, indented under the first; control characters show as ?', () => {
  const { logger, lines } = capture('terminal');
  logger.info('larder 0.1.0 listening on http://127.0.0.1:3142\ndata      /srv/larder');
  logger.info({ method: 'GET', path: '/simple/\u001b[31mx/', status: 404, ms: 1 }, 'request');
  const [first, second, request] = lines();
  assert.equal(first!.replace(TIME, ''), 'larder 0.1.0 listening on http://127.0.0.1:3142');
  assert.equal(second, `${' '.repeat(13)}data      /srv/larder`);
  assert.equal(request!.replace(TIME, ''), 'GET /simple/?[31mx/ 404 1 ms');
});

test('colors only when asked for', () => {
  const plain = capture('terminal', false);
  plain.logger.warn('disk low');
  plain.logger.info({ method: 'GET', path: '/', status: 500, ms: 1 }, 'request');
  assert.ok(!plain.lines().join('\n').includes('\u001b['));
  const colored = capture('terminal', true);
  colored.logger.warn('disk low');
  colored.logger.info({ method: 'GET', path: '/', status: 500, ms: 1 }, 'request');
  const [warn, request] = colored.lines();
  assert.match(warn!, /\u001b\[33mWARN\u001b\[39m disk low/);
  assert.match(request!, /\u001b\[31m500\u001b\[39m/);
});

test('the json format writes pino JSON lines, fields as they are', () => {
  const { logger, lines } = capture('json');
  logger.info({ method: 'GET', path: '/simple/', status: 200, ms: 2.5, aborted: true }, 'request');
  logger.error({ err: loggedError(new Error('a bug')) }, 'request failed');
  const [request, failure] = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual({ ...request, time: 0 }, { level: 30, time: 0, method: 'GET', path: '/simple/', status: 200, ms: 2.5, aborted: true, msg: 'request' });
  assert.match(String((failure!.err as { stack: string }).stack), /^Error: a bug\n\s+at /);
});
