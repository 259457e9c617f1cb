/**
 * A streaming reader for a large JSON document, fed text in pieces. A plan says, for the value at each
 * path, whether to descend into it (an object or array whose members are handled one by one), to read it
 * as a unit (cut out and handed to JSON.parse on its own), or to skip it (scanned, never kept). Units are
 * bounded (content-limits.ts), so no JSON.parse call, and no piece of the scan, does more than a bounded
 * amount of work, and memory holds one unit at most.
 */
import { ContentLimitError, MAX_JSON_DEPTH, MAX_JSON_ITEM_CHARS, MAX_JSON_OBJECT_KEYS, MAX_JSON_STRING_CHARS } from './content-limits.js';

export type JsonPath = readonly (string | number)[];

/** 'object' / 'array': descend when the value is one (anything else is read as a unit). */
export type JsonPlan = 'object' | 'array' | 'unit' | 'skip';

export interface JsonSplitHandler {
  plan(path: JsonPath): JsonPlan;
  /** A unit, parsed. */
  value(path: JsonPath, value: unknown): void;
  /** An object or array the plan descends into has begun. */
  open?(path: JsonPath): void;
}

const Expect = {
  Value: 0,
  Key: 1,
  Colon: 2,
  CommaOrEnd: 3,
} as const;
type Expect = (typeof Expect)[keyof typeof Expect];

interface Frame {
  array: boolean;
  path: JsonPath;
  key: string;
  index: number;
  expect: Expect;
}

interface Unit {
  path: JsonPath;
  keep: boolean;
  /** A key of a descended-into object, not a value. */
  isKey: boolean;
  literal: boolean;
  parts: string[];
  chars: number;
  limit: number;
  inString: boolean;
  escape: boolean;
  /** Open containers inside the unit: -1 for an array, else the keys counted so far. */
  open: number[];
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

export class JsonSplitter {
  readonly #where: string;
  readonly #handler: JsonSplitHandler;
  readonly #stack: Frame[] = [];
  #unit: Unit | null = null;
  #started = false;

  constructor(where: string, handler: JsonSplitHandler) {
    this.#where = where;
    this.#handler = handler;
  }

  /** Characters held for the unit being read (for tests of the bounds). */
  get heldChars(): number {
    return this.#unit?.parts.reduce((sum, part) => sum + part.length, 0) ?? 0;
  }

  push(text: string): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      if (this.#unit) {
        i = this.#scanUnit(text, i);
        continue;
      }
      const c = text.charCodeAt(i);
      if (isSpace(c)) {
        i++;
        continue;
      }
      const frame = this.#stack.at(-1);
      if (!frame) {
        if (this.#started) throw this.#syntax('unexpected data after the end of the document');
        this.#started = true;
        this.#startValue([], c);
        if (!this.#unit) i++;
        continue;
      }
      i = this.#step(frame, c, i);
    }
  }

  /** Ends the input: the document must be complete. */
  finish(): void {
    const unit = this.#unit;
    if (unit?.literal) this.#endUnit(unit, '');
    if (!this.#started) throw this.#syntax('the document is empty');
    if (this.#unit || this.#stack.length > 0) throw this.#syntax('the document ends early (truncated?)');
  }

  #step(frame: Frame, c: number, i: number): number {
    switch (frame.expect) {
      case Expect.Key:
        if (c === 0x22 /* " */) {
          this.#unit = this.#newUnit(frame.path, true, true, false, MAX_JSON_ITEM_CHARS);
          this.#unit.inString = true;
          this.#unit.parts.push('"');
          return i + 1;
        }
        if (c === 0x7d /* } */ && frame.index === 0) return this.#close(i);
        throw this.#unexpected(c);
      case Expect.Colon:
        if (c !== 0x3a /* : */) throw this.#unexpected(c);
        frame.expect = Expect.Value;
        return i + 1;
      case Expect.Value:
        if (c === 0x5d /* ] */ && frame.array && frame.index === 0) return this.#close(i);
        this.#startValue([...frame.path, frame.array ? frame.index : frame.key], c);
        return this.#unit ? i : i + 1;
      case Expect.CommaOrEnd:
        if (c === 0x2c /* , */) {
          frame.index += 1;
          frame.expect = frame.array ? Expect.Value : Expect.Key;
          return i + 1;
        }
        if (c === (frame.array ? 0x5d : 0x7d)) return this.#close(i);
        throw this.#unexpected(c);
    }
  }

  /** A value begins with `c`: descend into it, or start reading it as a unit. */
  #startValue(path: JsonPath, c: number): void {
    const plan = this.#handler.plan(path);
    if ((plan === 'object' && c === 0x7b) || (plan === 'array' && c === 0x5b)) {
      if (this.#stack.length + 1 > MAX_JSON_DEPTH) throw this.#tooDeep();
      this.#stack.push({ array: plan === 'array', path, key: '', index: 0, expect: plan === 'array' ? Expect.Value : Expect.Key });
      this.#handler.open?.(path);
      return;
    }
    const literal = c !== 0x22 && c !== 0x7b && c !== 0x5b;
    const limit = plan === 'skip' ? Number.POSITIVE_INFINITY : c === 0x22 ? MAX_JSON_STRING_CHARS : MAX_JSON_ITEM_CHARS;
    this.#unit = this.#newUnit(path, plan !== 'skip', false, literal, limit);
  }

  #newUnit(path: JsonPath, keep: boolean, isKey: boolean, literal: boolean, limit: number): Unit {
    return { path, keep, isKey, literal, parts: [], chars: 0, limit, inString: false, escape: false, open: [] };
  }

  /** Reads the unit on from `from`; returns where the scan goes on. */
  #scanUnit(text: string, from: number): number {
    const unit = this.#unit!;
    const open = unit.open;
    let i = from;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (unit.inString) {
        if (unit.escape) unit.escape = false;
        else if (c === 0x5c /* \ */) unit.escape = true;
        else if (c === 0x22) {
          unit.inString = false;
          if (open.length === 0 && !unit.literal) return this.#endUnit(unit, text.slice(from, i + 1), i + 1);
        }
        continue;
      }
      if (unit.literal) {
        if (isSpace(c) || c === 0x2c || c === 0x7d || c === 0x5d) return this.#endUnit(unit, text.slice(from, i), i);
        continue;
      }
      switch (c) {
        case 0x22:
          unit.inString = true;
          break;
        case 0x7b:
        case 0x5b:
          open.push(c === 0x7b ? 0 : -1);
          if (this.#stack.length + open.length > MAX_JSON_DEPTH) throw this.#tooDeep();
          break;
        case 0x7d:
        case 0x5d:
          open.pop();
          if (open.length === 0) return this.#endUnit(unit, text.slice(from, i + 1), i + 1);
          break;
        case 0x2c: {
          const keys = open.at(-1);
          if (keys !== undefined && keys >= 0) {
            open[open.length - 1] = keys + 1;
            if (keys + 2 > MAX_JSON_OBJECT_KEYS) {
              throw new ContentLimitError(`${this.#where}: an object at ${pathText(unit.path)} has more than ${MAX_JSON_OBJECT_KEYS} keys (larder's limit)`);
            }
          }
          break;
        }
      }
    }
    this.#keep(unit, text.slice(from));
    return i;
  }

  #keep(unit: Unit, part: string): void {
    unit.chars += part.length;
    if (unit.chars > unit.limit) {
      throw new ContentLimitError(`${this.#where}: the value at ${pathText(unit.path)} is longer than ${unit.limit} characters (larder's limit)`);
    }
    if (unit.keep) unit.parts.push(part);
  }

  #endUnit(unit: Unit, last: string, next = 0): number {
    this.#keep(unit, last);
    this.#unit = null;
    const frame = this.#stack.at(-1);
    if (unit.keep) {
      let value: unknown;
      try {
        value = JSON.parse(unit.parts.join(''));
      } catch (err) {
        throw this.#syntax(`at ${pathText(unit.path)}: ${(err as Error).message}`);
      }
      if (unit.isKey) {
        frame!.key = value as string;
        frame!.expect = Expect.Colon;
        return next;
      }
      this.#handler.value(unit.path, value);
    }
    if (frame) frame.expect = Expect.CommaOrEnd;
    return next;
  }

  #close(i: number): number {
    this.#stack.pop();
    const parent = this.#stack.at(-1);
    if (parent) parent.expect = Expect.CommaOrEnd;
    return i + 1;
  }

  #unexpected(c: number): Error {
    return this.#syntax(`unexpected ${JSON.stringify(String.fromCharCode(c))}`);
  }

  #syntax(detail: string): Error {
    return new Error(`${this.#where} is not valid JSON: ${detail}`);
  }

  #tooDeep(): Error {
    return new ContentLimitError(`${this.#where}: arrays and objects nest more than ${MAX_JSON_DEPTH} deep (larder's limit)`);
  }
}

function pathText(path: JsonPath): string {
  return path.length === 0 ? 'the top level' : path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('');
}
