/**
 * A streaming HTML tokenizer, fed text in pieces, that reports start tags with their attributes, comments
 * and the text of <title>. It follows the HTML tokenizer's states for tags, attributes, comments and the
 * raw-text elements (<script>, <style>, <title>, <textarea>, ...), so it finds the same tags a browser does,
 * but builds no tree: the quirks of tree building (<svg> content, <select>, <frameset>) are not modelled.
 * Work is linear in the input; what it holds is one unfinished tag, bounded by content-limits.ts.
 */
import { decodeHTML } from 'entities';
import { ContentLimitError, MAX_ATTRIBUTE_CHARS } from './content-limits.js';
import { CommentReader } from './html-comment-reader.js';
import { PendingTag } from './html-pending-tag.js';
import { asciiLower, findRawTextEnd, isAlpha, isSpace, normalize } from './html-text.js';
import { inTag, RAW_TEXT_ELEMENTS, TokenizerState as S } from './html-tokenizer-states.js';

export interface HtmlTokenHandler {
  /** A start tag: its name and attributes lowercased, values decoded; a repeated attribute keeps its first value. */
  startTag(name: string, attributes: ReadonlyMap<string, string>): void;
  /** A comment of at most MAX_KEPT_COMMENT_CHARS characters (longer ones are skipped). */
  comment(text: string): void;
  /** The decoded text of a <title> element. */
  title(text: string): void;
}

export class HtmlTokenizer {
  readonly #handler: HtmlTokenHandler;
  #state: S = S.Data;
  /** Text from the end of the last piece that the next one must complete (the start of a possible end tag). */
  #carry = '';
  readonly #tag = new PendingTag();
  /** Where the tag being read began in this piece. */
  #tagStart = 0;
  #sawDash = false;
  readonly #comment: CommentReader;
  /** In RawText: the element whose end tag ends it, and whether its text is kept (<title>). */
  #rawElement = '';
  #rawText: string | null = null;

  constructor(handler: HtmlTokenHandler) {
    this.#handler = handler;
    this.#comment = new CommentReader((text) => handler.comment(text));
  }

  /** Characters held for an unfinished tag, attribute or title (for tests of the bounds). */
  get heldChars(): number {
    return this.#carry.length + this.#tag.heldChars + (this.#rawText?.length ?? 0);
  }

  push(text: string): void {
    this.#run(this.#carry + text, false);
  }

  /** Ends the input; an unfinished tag is dropped, an open <title> ends here, as in a browser. */
  finish(): void {
    this.#run(this.#carry, true);
    if (this.#state === S.RawText && this.#rawText !== null) this.#handler.title(decodeHTML(normalize(this.#rawText)));
    this.#state = S.Data;
  }

  #run(text: string, final: boolean): void {
    this.#carry = '';
    this.#tagStart = 0;
    const n = text.length;
    /** Where the tag, attribute name or value being read began in this piece. */
    let mark = 0;
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      switch (this.#state) {
        case S.Data: {
          const lt = text.indexOf('<', i);
          if (lt < 0) return;
          this.#state = S.TagOpen;
          this.#tag.chars = 0;
          this.#tagStart = lt;
          i = lt + 1;
          continue;
        }
        case S.TagOpen:
          if (c === 0x21 /* ! */) {
            this.#state = S.MarkupDeclaration;
            this.#sawDash = false;
          } else if (c === 0x2f /* / */) this.#state = S.EndTagOpen;
          else if (isAlpha(c)) {
            this.#tag.start(false);
            mark = i;
            this.#state = S.TagName;
            continue;
          } else if (c === 0x3f /* ? */) this.#state = S.BogusComment;
          else {
            this.#state = S.Data;
            continue;
          }
          break;
        case S.EndTagOpen:
          if (isAlpha(c)) {
            this.#tag.start(true);
            mark = i;
            this.#state = S.TagName;
            continue;
          }
          this.#state = c === 0x3e /* > */ ? S.Data : S.BogusComment;
          break;
        case S.TagName:
          if (isSpace(c) || c === 0x2f || c === 0x3e) {
            this.#tag.name = asciiLower(this.#tag.name + text.slice(mark, i));
            this.#state = c === 0x2f ? S.SelfClosing : c === 0x3e ? this.#emitTag(i) : S.BeforeAttrName;
          }
          break;
        case S.BeforeAttrName:
          if (isSpace(c)) break;
          if (c === 0x2f || c === 0x3e) {
            this.#state = S.AfterAttrName;
            continue;
          }
          this.#tag.newAttribute();
          mark = i;
          this.#state = S.AttrName;
          if (c === 0x3d /* = */) break; // `=` first is part of the name
          continue;
        case S.AttrName:
          if (isSpace(c) || c === 0x2f || c === 0x3e || c === 0x3d) {
            this.#tag.attrName += text.slice(mark, i);
            this.#state = c === 0x3d ? S.BeforeAttrValue : S.AfterAttrName;
            if (c !== 0x3d) continue;
          }
          break;
        case S.AfterAttrName:
          if (isSpace(c)) break;
          if (c === 0x2f) this.#endAttribute(S.SelfClosing);
          else if (c === 0x3d) this.#state = S.BeforeAttrValue;
          else if (c === 0x3e) {
            this.#endAttribute(S.Data);
            this.#state = this.#emitTag(i);
          } else {
            this.#endAttribute(S.AttrName);
            this.#tag.newAttribute();
            mark = i;
            continue;
          }
          break;
        case S.BeforeAttrValue:
          if (isSpace(c)) break;
          if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
            this.#state = c === 0x22 ? S.AttrValueDouble : S.AttrValueSingle;
            mark = i + 1;
          } else if (c === 0x3e) {
            this.#endAttribute(S.Data);
            this.#state = this.#emitTag(i);
          } else {
            this.#state = S.AttrValueUnquoted;
            mark = i;
            continue;
          }
          break;
        case S.AttrValueDouble:
        case S.AttrValueSingle: {
          const end = text.indexOf(this.#state === S.AttrValueDouble ? '"' : "'", i);
          if (end < 0) {
            i = n;
            continue;
          }
          this.#tag.appendValue(text.slice(mark, end));
          this.#endAttribute(S.AfterAttrValueQuoted);
          i = end + 1;
          continue;
        }
        case S.AttrValueUnquoted:
          if (isSpace(c) || c === 0x3e) {
            this.#tag.appendValue(text.slice(mark, i));
            this.#endAttribute(S.BeforeAttrName);
            if (c === 0x3e) this.#state = this.#emitTag(i);
          }
          break;
        case S.AfterAttrValueQuoted:
          if (isSpace(c)) this.#state = S.BeforeAttrName;
          else if (c === 0x2f) this.#state = S.SelfClosing;
          else if (c === 0x3e) this.#state = this.#emitTag(i);
          else {
            this.#state = S.BeforeAttrName;
            continue;
          }
          break;
        case S.SelfClosing:
          if (c === 0x3e) this.#state = this.#emitTag(i);
          else {
            this.#state = S.BeforeAttrName;
            continue;
          }
          break;
        case S.MarkupDeclaration:
          if (c === 0x2d /* - */ && !this.#sawDash) this.#sawDash = true;
          else if (c === 0x2d) {
            this.#comment.begin();
            this.#state = S.CommentStart;
          } else {
            // DOCTYPE, CDATA outside foreign content and anything else all end at the next `>`.
            this.#state = S.BogusComment;
            continue;
          }
          break;
        case S.CommentStart:
        case S.CommentStartDash:
        case S.Comment:
        case S.CommentEndDash:
        case S.CommentEnd:
        case S.CommentEndBang:
          i = this.#comment.step(this.#state, text, i);
          this.#state = this.#comment.nextState;
          continue;
        case S.BogusComment: {
          const gt = text.indexOf('>', i);
          if (gt < 0) return;
          this.#state = S.Data;
          i = gt + 1;
          continue;
        }
        case S.RawText: {
          const found = this.#rawTextEnd(text, i, final);
          if (found === null) return;
          i = found;
          continue;
        }
        case S.PlainText:
          return;
      }
      i++;
    }
    this.#endOfPiece(text, mark);
  }

  /** At the end of a piece: the part of a name or value read so far is kept, and the tag's size checked. */
  #endOfPiece(text: string, mark: number): void {
    const state = this.#state;
    if (state === S.TagName) this.#tag.name += text.slice(mark);
    else if (state === S.AttrName) this.#tag.attrName += text.slice(mark);
    else if (state === S.AttrValueDouble || state === S.AttrValueSingle || state === S.AttrValueUnquoted) this.#tag.appendValue(text.slice(mark));
    if (inTag(state)) this.#tag.addChars(text.length - this.#tagStart);
  }

  /** Ends the attribute being read (the first of a name wins) and moves to `next`. */
  #endAttribute(next: S): S {
    this.#tag.endAttribute();
    this.#state = next;
    return next;
  }

  /** The tag ends at `end` (its `>`): reports a start tag and picks the state its content is read in. */
  #emitTag(end: number): S {
    this.#tag.addChars(end + 1 - this.#tagStart);
    const endTag = this.#tag.endTag;
    const { name, attributes } = this.#tag.take();
    if (endTag) return S.Data;
    this.#handler.startTag(name, attributes);
    if (name === 'plaintext') return S.PlainText;
    if (!RAW_TEXT_ELEMENTS.has(name)) return S.Data;
    this.#rawElement = name;
    this.#rawText = name === 'title' ? '' : null;
    return S.RawText;
  }

  /**
   * Looks for the raw-text element's end tag (`</name` then a space, `/` or `>`) from `from`. Returns where
   * to go on (the end tag is then being read), or null when the piece is used up (its tail may be carried).
   */
  #rawTextEnd(text: string, from: number, final: boolean): number | null {
    const name = this.#rawElement;
    const end = findRawTextEnd(text, from, name, final);
    if (!end.found) {
      this.#carry = text.slice(end.kept);
      this.#keepRawText(text.slice(from, end.kept));
      return null;
    }
    const { lt, after } = end;
    this.#keepRawText(text.slice(from, lt));
    if (this.#rawText !== null) this.#handler.title(decodeHTML(normalize(this.#rawText)));
    this.#rawText = null;
    this.#tag.start(true);
    this.#tag.name = name;
    this.#tag.chars = 0;
    this.#tagStart = lt;
    this.#state = after === 0x3e ? S.Data : after === 0x2f ? S.SelfClosing : S.BeforeAttrName;
    return lt + 3 + name.length;
  }

  #keepRawText(part: string): void {
    if (this.#rawText === null) return;
    this.#rawText += part;
    if (this.#rawText.length > MAX_ATTRIBUTE_CHARS) {
      throw new ContentLimitError(`the page's <title> is longer than ${MAX_ATTRIBUTE_CHARS} characters (larder's limit)`);
    }
  }
}
