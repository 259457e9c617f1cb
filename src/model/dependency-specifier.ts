/**
 * PEP 508 dependency specifiers (`Requires-Dist`, `Provides-Dist`, `Obsoletes-Dist`), checked by a port
 * of `packaging`'s tokenizer and recursive-descent parser (`packaging/_tokenizer.py`, `_parser.py`), so
 * that larder refuses what pip and Warehouse refuse, with packaging's reason. Linear in the length of
 * the text; marker parentheses may nest MAX_MARKER_DEPTH deep (Python would give up with a recursion
 * error long before any real marker got there).
 */
import { SPECIFIER_PATTERN } from './specifiers.js';

export const MAX_MARKER_DEPTH = 32;

const RULES = {
  LEFT_PARENTHESIS: /\(/y,
  RIGHT_PARENTHESIS: /\)/y,
  LEFT_BRACKET: /\[/y,
  RIGHT_BRACKET: /\]/y,
  SEMICOLON: /;/y,
  COMMA: /,/y,
  QUOTED_STRING: /'[^']*'|"[^"]*"/y,
  OP: /===|==|~=|!=|<=|>=|<|>/y,
  BOOLOP: /\b(?:or|and)\b/y,
  IN: /\bin\b/y,
  NOT: /\bnot\b/y,
  VARIABLE:
    /\b(?:python_version|python_full_version|os[._]name|sys[._]platform|platform_(?:release|system)|platform[._](?:version|machine|python_implementation)|python_implementation|implementation_(?:name|version)|extras?|dependency_groups)\b/y,
  SPECIFIER: new RegExp(`(?:${SPECIFIER_PATTERN})`, 'iy'),
  AT: /@/y,
  URL: /[^ \t]+/y,
  IDENTIFIER: /\b[a-zA-Z0-9][a-zA-Z0-9._-]*\b/y,
  VERSION_PREFIX_TRAIL: /\.\*/y,
  VERSION_LOCAL_LABEL_TRAIL: /\+[a-z0-9]+(?:[-_.][a-z0-9]+)*/y,
  WS: /[ \t]+/y,
  END: /$/y,
} as const;

type TokenName = keyof typeof RULES;

class DependencySyntaxError extends Error {}

export interface DependencySpecifier {
  name: string;
  /** The direct reference after `@`, or null. */
  url: string | null;
}

class Tokenizer {
  position = 0;
  private pending: string | null = null;

  constructor(private readonly source: string) {}

  /** Whether the next token is `name`; unless `peek`, it is then loaded for `read`. */
  check(name: TokenName, peek = false): boolean {
    const rule = RULES[name];
    rule.lastIndex = this.position;
    const match = rule.exec(this.source);
    if (!match) return false;
    if (!peek) this.pending = match[0];
    return true;
  }

  read(): string {
    const text = this.pending!;
    this.position += text.length;
    this.pending = null;
    return text;
  }

  consume(name: TokenName): void {
    if (this.check(name)) this.read();
  }

  expect(name: TokenName, expected: string): string {
    if (!this.check(name)) throw new DependencySyntaxError(`expected ${expected}`);
    return this.read();
  }

  /** `open body close`, or just `body` when the next token is not `open`. */
  enclosing(open: TokenName, close: TokenName, around: string, body: () => void): void {
    const opened = this.check(open);
    if (opened) this.read();
    body();
    if (!opened) return;
    if (!this.check(close)) throw new DependencySyntaxError(`expected matching ${close} for ${open}, after ${around}`);
    this.read();
  }
}

/** The parsed requirement, or the reason it is not one (packaging's words, lower-cased first letter). */
export function parseDependencySpecifier(text: string): DependencySpecifier | { error: string } {
  try {
    return parseRequirement(new Tokenizer(text));
  } catch (err) {
    if (err instanceof DependencySyntaxError) return { error: err.message };
    throw err;
  }
}

function parseRequirement(t: Tokenizer): DependencySpecifier {
  t.consume('WS');
  const name = t.expect('IDENTIFIER', 'package name at the start of dependency specifier');
  t.consume('WS');
  if (t.check('LEFT_BRACKET', true)) t.enclosing('LEFT_BRACKET', 'RIGHT_BRACKET', 'extras', () => parseExtras(t));
  t.consume('WS');
  let url: string | null = null;
  if (t.check('AT')) {
    t.read();
    t.consume('WS');
    url = t.expect('URL', 'URL after @');
    if (!t.check('END', true)) {
      t.expect('WS', 'whitespace after URL');
      if (!t.check('END', true)) parseRequirementMarker(t, 'semicolon (after URL and whitespace)');
    }
  } else {
    let specifier = '';
    t.enclosing('LEFT_PARENTHESIS', 'RIGHT_PARENTHESIS', 'version specifier', () => {
      t.consume('WS');
      specifier = parseVersionMany(t);
      t.consume('WS');
    });
    t.consume('WS');
    if (!t.check('END', true)) {
      parseRequirementMarker(
        t,
        specifier ? 'comma (within version specifier), semicolon (after version specifier)' : 'semicolon (after name with no version specifier)',
      );
    }
  }
  t.expect('END', 'end of dependency specifier');
  return { name, url };
}

function parseRequirementMarker(t: Tokenizer, expected: string): void {
  if (!t.check('SEMICOLON')) throw new DependencySyntaxError(`expected ${expected} or end`);
  t.read();
  parseMarker(t, 0);
  t.consume('WS');
}

function parseExtras(t: Tokenizer): void {
  t.consume('WS');
  if (t.check('IDENTIFIER')) {
    t.read();
    for (;;) {
      t.consume('WS');
      if (t.check('IDENTIFIER', true)) throw new DependencySyntaxError('expected comma between extra names');
      if (!t.check('COMMA')) break;
      t.read();
      t.consume('WS');
      t.expect('IDENTIFIER', 'extra name after comma');
    }
  }
  t.consume('WS');
}

function parseVersionMany(t: Tokenizer): string {
  let specifiers = '';
  while (t.check('SPECIFIER')) {
    const specifier = t.read();
    specifiers += specifier;
    if (t.check('VERSION_PREFIX_TRAIL', true)) {
      const equality = specifier.startsWith('!=') || (specifier.startsWith('==') && !specifier.startsWith('==='));
      throw new DependencySyntaxError(
        equality ? '.* suffix cannot be used with pre-release, post-release, dev or local versions' : '.* suffix can only be used with `==` or `!=` operators',
      );
    }
    if (t.check('VERSION_LOCAL_LABEL_TRAIL', true)) throw new DependencySyntaxError('local version label can only be used with `==` or `!=` operators');
    t.consume('WS');
    if (!t.check('COMMA')) break;
    specifiers += t.read();
    t.consume('WS');
  }
  return specifiers;
}

function parseMarker(t: Tokenizer, depth: number): void {
  if (depth > MAX_MARKER_DEPTH) throw new DependencySyntaxError(`marker parentheses nested more than ${MAX_MARKER_DEPTH} deep`);
  parseMarkerAtom(t, depth);
  while (t.check('BOOLOP')) {
    t.read();
    parseMarkerAtom(t, depth);
  }
}

function parseMarkerAtom(t: Tokenizer, depth: number): void {
  t.consume('WS');
  if (t.check('LEFT_PARENTHESIS', true)) {
    t.enclosing('LEFT_PARENTHESIS', 'RIGHT_PARENTHESIS', 'marker expression', () => {
      t.consume('WS');
      parseMarker(t, depth + 1);
      t.consume('WS');
    });
  } else {
    t.consume('WS');
    parseMarkerVar(t);
    t.consume('WS');
    parseMarkerOp(t);
    t.consume('WS');
    parseMarkerVar(t);
    t.consume('WS');
  }
  t.consume('WS');
}

function parseMarkerVar(t: Tokenizer): void {
  if (t.check('VARIABLE')) {
    t.read();
  } else if (t.check('QUOTED_STRING')) {
    if (!isPythonStringBody(t.read().slice(1, -1))) throw new DependencySyntaxError('invalid quoted string');
  } else {
    throw new DependencySyntaxError('expected a marker variable or quoted string');
  }
}

function parseMarkerOp(t: Tokenizer): void {
  if (t.check('IN')) {
    t.read();
  } else if (t.check('NOT')) {
    t.read();
    t.expect('WS', "whitespace after 'not'");
    t.expect('IN', "'in' after 'not'");
  } else if (t.check('OP')) {
    t.read();
  } else {
    throw new DependencySyntaxError('expected marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not in');
  }
}

/** Whether Python's `ast.literal_eval` takes the quoted body: its backslash escapes are complete. */
function isPythonStringBody(body: string): boolean {
  const escapes = /\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]+\}|[^xuUN]|$)/g;
  for (const m of body.matchAll(escapes)) {
    if (m[1] === '' || (m[1]!.startsWith('U') && Number.parseInt(m[1]!.slice(1), 16) > 0x10ffff)) return false;
  }
  return !/\\[xuUN]/.test(body.replace(escapes, ''));
}
