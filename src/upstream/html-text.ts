/** Character tests and text normalisation for the HTML tokenizer, and its search for a raw-text element's end tag. */

export const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
export const isAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
/** The input stream's preprocessing: CR LF and CR become LF, NUL becomes U+FFFD. */
export const normalize = (text: string) => text.replace(/\r\n?/g, '\n').replace(/\0/g, '\ufffd');
export const asciiLower = (text: string) => normalize(text).replace(/[A-Z]+/g, (s) => s.toLowerCase());

/**
 * Where a raw-text element's end tag was found: `lt` is its `<`, `after` the code of the character after its
 * name (a space, `/` or `>`). Or, when the piece holds no whole end tag, `kept`: the text from there on may
 * begin one and is carried into the next piece (at the end of the input nothing is carried).
 */
export type RawTextEnd = { found: true; lt: number; after: number } | { found: false; kept: number };

/** Looks for `</name` followed by a space, `/` or `>` in `text` from `from` (`name` is lowercase). */
export function findRawTextEnd(text: string, from: number, name: string, final: boolean): RawTextEnd {
  let at = from;
  for (;;) {
    let lt = text.indexOf('</', at);
    if (lt < 0 || lt + name.length + 2 >= text.length) {
      if (lt < 0 && text.endsWith('<')) lt = text.length - 1; // `</` may straddle the next piece
      return { found: false, kept: lt >= 0 && !final ? lt : text.length };
    }
    const after = text.charCodeAt(lt + 2 + name.length);
    if (asciiLower(text.slice(lt + 2, lt + 2 + name.length)) === name && (isSpace(after) || after === 0x2f || after === 0x3e)) {
      return { found: true, lt, after };
    }
    at = lt + 2;
  }
}
