/**
 * Warehouse's "json-with-newline" wire format: `json.dumps(sort_keys=True, separators=(",", ":"),
 * ensure_ascii=False) + "\n"`.
 *
 * Objects are serialized by hand rather than rebuilt and passed to JSON.stringify: a JS object lists
 * integer-like keys (a release "2") before all others, whatever order they were inserted in.
 */
export function toWireJson(value: unknown): string {
  return `${toCompactJson(value)}\n`;
}

/** The same, without the trailing newline (for documents assembled from pieces). */
export function toCompactJson(value: unknown): string {
  return serialize(value) ?? 'null';
}

/**
 * A URL whose base is filled in later (`fillBase`), so that one serialization serves every base: it is
 * written as a raw NUL, which marks where the base goes, then the path. JSON.stringify escapes every
 * control character, so no NUL in the output comes from the data.
 */
export class UrlUnderBase {
  constructor(readonly path: string) {}
}

const BASE_MARK = '\u0000';

/** A document serialized with `UrlUnderBase` values, with `base` (no trailing slash) put at each mark. */
export function fillBase(template: string, base: string): string {
  return template.split(BASE_MARK).join(jsonEscaped(base));
}

/** The same on the UTF-8 bytes (where a 0 byte is only ever U+0000), copied straight into the result. */
export function fillBaseBytes(template: Buffer, base: string): Buffer {
  const filler = Buffer.from(jsonEscaped(base), 'utf8');
  let marks = 0;
  for (let at = template.indexOf(0); at !== -1; at = template.indexOf(0, at + 1)) marks++;
  const filled = Buffer.allocUnsafe(template.length + marks * (filler.length - 1));
  let from = 0;
  let to = 0;
  for (let at = template.indexOf(0); at !== -1; at = template.indexOf(0, from)) {
    to += template.copy(filled, to, from, at);
    to += filler.copy(filled, to);
    from = at + 1;
  }
  template.copy(filled, to, from);
  return filled;
}

function jsonEscaped(base: string): string {
  return JSON.stringify(base.replace(/\/+$/, '')).slice(1, -1);
}

/** undefined for values JSON.stringify leaves out of objects (undefined, functions, symbols). */
function serialize(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (value instanceof UrlUnderBase) return `"${BASE_MARK}${JSON.stringify(value.path).slice(1)}`;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'object':
      return Array.isArray(value) ? serializeArray(value) : serializeObject(value as Record<string, unknown>);
    default:
      return undefined;
  }
}

function serializeArray(items: unknown[]): string {
  return `[${items.map((item) => serialize(item) ?? 'null').join(',')}]`;
}

function serializeObject(object: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of inWireOrder(Object.keys(object))) {
    const serialized = serialize(object[key]);
    if (serialized !== undefined) parts.push(`${JSON.stringify(key)}:${serialized}`);
  }
  return `{${parts.join(',')}}`;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** `keys` sorted as `sort_keys=True` writes them (by code point), in place. */
export function inWireOrder(keys: string[]): string[] {
  // The built-in sort (UTF-16 units) equals code-point order unless a key holds a surrogate pair.
  if (keys.some((key) => SURROGATE.test(key))) return keys.sort(compareCodePoints);
  return keys.sort();
}

/** Python's str ordering (by code point); plain `<` orders astral characters by UTF-16 code unit. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Moves surrogates (astral code points) above U+E000–U+FFFF, keeping every other order. */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
