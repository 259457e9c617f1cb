/**
 * An incremental scanner that finds `<a href=...>text</a>` in HTML fed in pieces. It keeps only the
 * unfinished tail of the input (at most one tag or anchor), so memory does not grow with the page.
 * It skips comments and the contents of <script> and <style>; it is not a general HTML parser.
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities';

export interface Anchor {
  /** The `href` attribute, entity-decoded; null when the anchor has none. */
  href: string | null;
  /** The text inside the anchor: inner tags dropped, entities decoded, trimmed. */
  text: string;
}

/** Longest unfinished tag or anchor the scanner will hold while waiting for its end. */
export const MAX_PENDING_CHARS = 1 << 20;

const HREF = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;
const TAG_NAME = /^<(\/?)([a-zA-Z][^\s/>]*)/;
const INNER_TAG = /<[^>]*>/g;

/** Most names on a root page have no character reference: those skip the decoder. */
const decoded = (text: string, decode: (text: string) => string) => (text.includes('&') ? decode(text) : text);

/** One step of the scan: where to continue, and the anchor found, if any. null: need more input. */
type Step = { next: number; anchor?: Anchor } | null;

export class AnchorScanner {
  #pending = '';
  #inComment = false;

  /** Adds text and returns the anchors it completes. */
  push(text: string): Anchor[] {
    return this.#scan(this.#pending + text, false);
  }

  /** Ends the input: an anchor left open runs to the end, as in a browser. */
  finish(): Anchor[] {
    return this.#scan(this.#pending, true);
  }

  #scan(buf: string, final: boolean): Anchor[] {
    const anchors: Anchor[] = [];
    let pos = 0;
    for (;;) {
      if (this.#inComment) {
        const end = buf.indexOf('-->', pos);
        if (end < 0) {
          // Keep two characters: `-->` may straddle the next piece.
          pos = Math.max(pos, buf.length - 2);
          break;
        }
        this.#inComment = false;
        pos = end + 3;
        continue;
      }
      const lt = buf.indexOf('<', pos);
      if (lt < 0) {
        pos = buf.length;
        break;
      }
      const step = this.#step(buf, lt, final);
      if (step === null) {
        pos = final ? buf.length : lt;
        break;
      }
      if (step.anchor) anchors.push(step.anchor);
      pos = step.next;
    }
    this.#pending = buf.slice(pos);
    if (this.#pending.length > MAX_PENDING_CHARS) {
      throw new Error(`HTML: a tag or anchor runs on for more than ${MAX_PENDING_CHARS} characters`);
    }
    return anchors;
  }

  #step(buf: string, lt: number, final: boolean): Step {
    if (buf.length - lt < 4 && '<!--'.startsWith(buf.slice(lt)) && !final) return null;
    if (buf.startsWith('<!--', lt)) {
      this.#inComment = true;
      return { next: lt + 4 };
    }
    const second = buf[lt + 1];
    if (second === undefined) return null;
    if (!/[a-zA-Z/!?]/.test(second)) return { next: lt + 1 }; // a bare `<` in text
    const tagEnd = findTagEnd(buf, lt + 1);
    if (tagEnd < 0) return null;
    const name = TAG_NAME.exec(buf.slice(lt, Math.min(tagEnd, lt + 64)));
    const closing = name?.[1] === '/';
    const tag = name?.[2]?.toLowerCase();
    if (closing || tag === undefined) return { next: tagEnd + 1 };
    if (tag === 'script' || tag === 'style') {
      const close = new RegExp(`</${tag}[\\s>/]`, 'ig');
      close.lastIndex = tagEnd + 1;
      const match = close.exec(buf);
      if (!match) return final ? { next: buf.length } : null;
      return { next: match.index + 2 };
    }
    if (tag !== 'a') return { next: tagEnd + 1 };

    // The anchor ends at `</a>`, or where the next one starts (browsers close it there too).
    const end = /<\/a\s*>|<a[\s>]/gi;
    end.lastIndex = tagEnd + 1;
    const match = end.exec(buf);
    if (!match && !final) return null;
    const textEnd = match ? match.index : buf.length;
    const next = !match ? buf.length : match[0].startsWith('</') ? textEnd + match[0].length : textEnd;
    const hrefMatch = HREF.exec(buf.slice(lt, tagEnd));
    const href = hrefMatch ? decoded(hrefMatch[1] ?? hrefMatch[2] ?? hrefMatch[3] ?? '', decodeHTMLAttribute) : null;
    const text = decoded(buf.slice(tagEnd + 1, textEnd).replace(INNER_TAG, ''), decodeHTML).trim();
    return { next, anchor: { href, text } };
  }
}

/** Index of the `>` that ends the tag starting before `from`, skipping quoted attribute values; -1 if not yet seen. */
function findTagEnd(buf: string, from: number): number {
  let quote = '';
  let afterEquals = false;
  for (let i = from; i < buf.length; i++) {
    const ch = buf[i]!;
    if (quote) {
      if (ch === quote) quote = '';
      continue;
    }
    if (ch === '>') return i;
    if ((ch === '"' || ch === "'") && afterEquals) {
      quote = ch;
      afterEquals = false;
    } else if (ch === '=') afterEquals = true;
    else if (ch !== ' ' && ch !== '\t' && ch !== '\n' && ch !== '\r' && ch !== '\f') afterEquals = false;
  }
  return -1;
}
