/**
 * pino's JSON lines rewritten for a person at a terminal: one short line per request
 * (`12:01:02.345 GET /simple/requests/ 200 3.1 ms hit`), other entries as the time, the level (unless
 * info), the message and its fields on one line. Only an error object (a bug, logged with `err`) adds
 * lines: its stack. Control characters from clients or upstreams are shown as `?`.
 */
import { styleText } from 'node:util';

type Style = Parameters<typeof styleText>[0];

interface Entry {
  level?: number;
  time?: number;
  msg?: string;
  [field: string]: unknown;
}

const LEVELS: Record<number, [label: string, style: Style]> = {
  10: ['TRACE', 'gray'],
  20: ['DEBUG', 'gray'],
  40: ['WARN', 'yellow'],
  50: ['ERROR', 'red'],
  60: ['FATAL', ['red', 'bold']],
};

const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;
const printable = (text: string) => text.replace(CONTROL, '?');

function clock(time: unknown): string {
  const at = new Date(typeof time === 'number' ? time : Date.now());
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(at.getMilliseconds()).padStart(3, '0')}`;
}

function statusStyle(status: number): Style {
  return status >= 500 ? 'red' : status >= 400 ? 'yellow' : 'green';
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? printable(value) : printable(JSON.stringify(value));
  return printable(JSON.stringify(value) ?? String(value));
}

interface SerializedError {
  message?: string;
  stack?: string;
}

export function formatEntry(entry: Entry, colors: boolean): string {
  const paint = (style: Style, text: string) => (colors ? styleText(style, text, { validateStream: false }) : text);
  const { level = 30, time, msg = '', ...fields } = entry;
  const start = paint('gray', clock(time));
  if (msg === 'request' && typeof fields.method === 'string' && typeof fields.status === 'number') {
    const { method, path, status, ms, cache, code, aborted } = fields;
    const parts = [start, printable(method), printable(String(path)), paint(statusStyle(status), String(status)), `${ms} ms`];
    if (typeof cache === 'string') parts.push(paint('cyan', printable(cache)));
    if (typeof code === 'string') parts.push(printable(code));
    if (aborted === true) parts.push(paint('yellow', '(closed before the end)'));
    return parts.join(' ');
  }
  const [label, style] = LEVELS[level] ?? ['', 'reset'];
  const indent = ' '.repeat(13);
  const [first = '', ...more] = msg.split('\n').map(printable);
  let head = `${start} ${label ? `${paint(style, label)} ` : ''}${first}`;
  const below = more.map((line) => `${indent}${line}`);
  const { err, ...rest } = fields;
  if (typeof err === 'string') head += `: ${printable(err)}`;
  else if (err && typeof err === 'object') {
    const { message, stack } = err as SerializedError;
    head += `: ${printable(String(message ?? ''))}`;
    const frames = (stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
    below.push(...frames.map((line) => `${indent}${printable(line.trim())}`));
  }
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    const text = typeof value === 'object' && value !== null ? JSON.stringify(value, null, 2) : null;
    if (text && text.length > 80) below.push(`${indent}${key}: ${text.split('\n').map(printable).join(`\n${indent}`)}`);
    else pairs.push(`${key}=${scalar(value)}`);
  }
  if (pairs.length) head += `  ${paint('gray', pairs.join(' '))}`;
  return [head, ...below].join('\n');
}

/** A pino destination writing formatted lines to `out`. */
export function terminalLines(out: { write(text: string): unknown }, options: { colors: boolean }): { write(line: string): void } {
  return {
    write(line) {
      let entry: Entry;
      try {
        entry = JSON.parse(line) as Entry;
      } catch {
        out.write(line);
        return;
      }
      out.write(`${formatEntry(entry, options.colors)}\n`);
    },
  };
}
