/**
 * A streaming HTML tokenizer, fed text in pieces, that reports start tags with their attributes, comments
 * and the text of <title>. It follows the HTML tokenizer's states for tags, attributes, comments and the
 * raw-text elements (<script>, <style>, <title>, <textarea>, ...), so it finds the same tags a browser does,
 * but builds no tree: the quirks of tree building (<svg> content, <select>, <frameset>) are not modelled.
 * Work is linear in the input; what it holds is one unfinished tag, bounded by content-limits.ts.
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities';
import { ContentLimitError, MAX_ATTRIBUTE_CHARS, MAX_ATTRIBUTES_PER_TAG, MAX_KEPT_COMMENT_CHARS, MAX_TAG_CHARS } from './content-limits.js';

export interface HtmlTokenHandler {
  /** A start tag: its name and attributes lowercased, values decoded; a repeated attribute keeps its first value. */
  startTag(name: string, attributes: ReadonlyMap<string, string>): void;
  /** A comment of at most MAX_KEPT_COMMENT_CHARS characters (longer ones are skipped). */
  comment(text: string): void;
  /** The decoded text of a <title> element. */
  title(text: string): void;
}

const S = {
  Data: 0,
  TagOpen: 1,
  EndTagOpen: 2,
  TagName: 3,
  BeforeAttrName: 4,
  AttrName: 5,
  AfterAttrName: 6,
  BeforeAttrValue: 7,
  AttrValueDouble: 8,
  AttrValueSingle: 9,
  AttrValueUnquoted: 10,
  AfterAttrValueQuoted: 11,
  SelfClosing: 12,
  MarkupDeclaration: 13,
  CommentStart: 14,
  CommentStartDash: 15,
  Comment: 16,
  CommentEndDash: 17,
  CommentEnd: 18,
  CommentEndBang: 19,
  BogusComment: 20,
  RawText: 21,
  PlainText: 22,
} as const;
type S = (typeof S)[keyof typeof S];

/** Elements whose content is text up to their end tag (with scripting on, as in a browser and parse5). */
const RAW_TEXT = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'title', 'textarea']);

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
const isAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
/** The input stream's preprocessing: CR LF and CR become LF, NUL becomes U+FFFD. */
const normalize = (text: string) => text.replace(/\r\n?/g, '\n').replace(/\0/g, '\ufffd');
const asciiLower = (text: string) => normalize(text).replace(/[A-Z]+/g, (s) => s.toLowerCase());

export class HtmlTokenizer {
  readonly #handler: HtmlTokenHandler;
  #state: S = S.Data;
  /** Text from the end of the last piece that the next one must complete (the start of a possible end tag). */
  #carry = '';
  #endTag = false;
  #tagName = '';
  /** Characters of the tag being read in earlier pieces, and where it began in this one. */
  #tagChars = 0;
  #tagStart = 0;
  #attributes = new Map<string, string>();
  #attributeCount = 0;
  #attrName = '';
  #attrValue = '';
  #sawDash = false;
  #comment = '';
  #commentTooLong = false;
  /** In RawText: the element whose end tag ends it, and whether its text is kept (<title>). */
  #rawElement = '';
  #rawText: string | null = null;

  constructor(handler: HtmlTokenHandler) {
    this.#handler = handler;
  }

  /** Characters held for an unfinished tag, attribute or title (for tests of the bounds). */
  get heldChars(): number {
    return this.#carry.length + this.#tagName.length + this.#attrName.length + this.#attrValue.length + (this.#rawText?.length ?? 0);
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
          this.#tagChars = 0;
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
            this.#startTag(false);
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
            this.#startTag(true);
            mark = i;
            this.#state = S.TagName;
            continue;
          }
          this.#state = c === 0x3e /* > */ ? S.Data : S.BogusComment;
          break;
        case S.TagName:
          if (isSpace(c) || c === 0x2f || c === 0x3e) {
            this.#tagName = asciiLower(this.#tagName + text.slice(mark, i));
            this.#state = c === 0x2f ? S.SelfClosing : c === 0x3e ? this.#emitTag(i) : S.BeforeAttrName;
          }
          break;
        case S.BeforeAttrName:
          if (isSpace(c)) break;
          if (c === 0x2f || c === 0x3e) {
            this.#state = S.AfterAttrName;
            continue;
          }
          this.#newAttribute();
          mark = i;
          this.#state = S.AttrName;
          if (c === 0x3d /* = */) break; // `=` first is part of the name
          continue;
        case S.AttrName:
          if (isSpace(c) || c === 0x2f || c === 0x3e || c === 0x3d) {
            this.#attrName += text.slice(mark, i);
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
            this.#newAttribute();
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
          this.#appendValue(text.slice(mark, end));
          this.#endAttribute(S.AfterAttrValueQuoted);
          i = end + 1;
          continue;
        }
        case S.AttrValueUnquoted:
          if (isSpace(c) || c === 0x3e) {
            this.#appendValue(text.slice(mark, i));
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
            this.#comment = '';
            this.#commentTooLong = false;
            this.#state = S.CommentStart;
          } else {
            // DOCTYPE, CDATA outside foreign content and anything else all end at the next `>`.
            this.#state = S.BogusComment;
            continue;
          }
          break;
        case S.CommentStart:
        case S.CommentStartDash:
          if (c === 0x3e) this.#state = this.#emitComment();
          else if (c === 0x2d && this.#state === S.CommentStart) this.#state = S.CommentStartDash;
          else if (c === 0x2d) this.#state = S.CommentEnd;
          else {
            if (this.#state === S.CommentStartDash) this.#keepComment('-');
            this.#state = S.Comment;
            continue;
          }
          break;
        case S.Comment: {
          const dash = text.indexOf('-', i);
          this.#keepComment(text.slice(i, dash < 0 ? n : dash));
          if (dash < 0) {
            i = n;
            continue;
          }
          this.#state = S.CommentEndDash;
          i = dash + 1;
          continue;
        }
        case S.CommentEndDash:
          if (c === 0x2d) this.#state = S.CommentEnd;
          else {
            this.#keepComment('-');
            this.#state = S.Comment;
            continue;
          }
          break;
        case S.CommentEnd:
          if (c === 0x3e) this.#state = this.#emitComment();
          else if (c === 0x21 /* ! */) this.#state = S.CommentEndBang;
          else if (c === 0x2d) this.#keepComment('-');
          else {
            this.#keepComment('--');
            this.#state = S.Comment;
            continue;
          }
          break;
        case S.CommentEndBang:
          if (c === 0x3e) this.#state = this.#emitComment();
          else {
            this.#keepComment('--!');
            this.#state = c === 0x2d ? S.CommentEndDash : S.Comment;
            if (c !== 0x2d) continue;
          }
          break;
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
    if (state === S.TagName) this.#tagName += text.slice(mark);
    else if (state === S.AttrName) this.#attrName += text.slice(mark);
    else if (state === S.AttrValueDouble || state === S.AttrValueSingle || state === S.AttrValueUnquoted) this.#appendValue(text.slice(mark));
    if (state >= S.TagOpen && state <= S.SelfClosing) {
      this.#tagChars += text.length - this.#tagStart;
      this.#checkTagChars();
    }
  }

  #startTag(endTag: boolean): void {
    this.#endTag = endTag;
    this.#tagName = '';
    this.#attributes = new Map();
    this.#attributeCount = 0;
  }

  #newAttribute(): void {
    this.#attributeCount += 1;
    if (this.#attributeCount > MAX_ATTRIBUTES_PER_TAG) {
      throw new ContentLimitError(`a <${this.#tagName}> tag has more than ${MAX_ATTRIBUTES_PER_TAG} attributes (larder's limit)`);
    }
    this.#attrName = '';
    this.#attrValue = '';
  }

  #appendValue(part: string): void {
    this.#attrValue += part;
    if (this.#attrValue.length > MAX_ATTRIBUTE_CHARS) {
      throw new ContentLimitError(`an attribute of a <${this.#tagName}> tag is longer than ${MAX_ATTRIBUTE_CHARS} characters (larder's limit)`);
    }
  }

  /** Ends the attribute being read (the first of a name wins) and moves to `next`. */
  #endAttribute(next: S): S {
    const name = asciiLower(this.#attrName);
    if (name !== '' && !this.#attributes.has(name)) this.#attributes.set(name, decodeHTMLAttribute(normalize(this.#attrValue)));
    this.#attrName = '';
    this.#attrValue = '';
    this.#state = next;
    return next;
  }

  #checkTagChars(): void {
    if (this.#tagChars > MAX_TAG_CHARS) {
      throw new ContentLimitError(`a <${this.#tagName || '…'}> tag is longer than ${MAX_TAG_CHARS} characters (larder's limit)`);
    }
  }

  /** The tag ends at `end` (its `>`): reports a start tag and picks the state its content is read in. */
  #emitTag(end: number): S {
    this.#tagChars += end + 1 - this.#tagStart;
    this.#checkTagChars();
    const name = this.#tagName;
    const attributes = this.#attributes;
    this.#tagName = '';
    this.#attributes = new Map();
    if (this.#endTag) return S.Data;
    this.#handler.startTag(name, attributes);
    if (name === 'plaintext') return S.PlainText;
    if (!RAW_TEXT.has(name)) return S.Data;
    this.#rawElement = name;
    this.#rawText = name === 'title' ? '' : null;
    return S.RawText;
  }

  #keepComment(part: string): void {
    if (this.#commentTooLong) return;
    this.#comment += part;
    if (this.#comment.length > MAX_KEPT_COMMENT_CHARS) {
      this.#commentTooLong = true;
      this.#comment = '';
    }
  }

  #emitComment(): S {
    if (!this.#commentTooLong) this.#handler.comment(normalize(this.#comment));
    this.#comment = '';
    return S.Data;
  }

  /**
   * Looks for the raw-text element's end tag (`</name` then a space, `/` or `>`) from `from`. Returns where
   * to go on (the end tag is then being read), or null when the piece is used up (its tail may be carried).
   */
  #rawTextEnd(text: string, from: number, final: boolean): number | null {
    const name = this.#rawElement;
    let at = from;
    for (;;) {
      let lt = text.indexOf('</', at);
      const stop = lt < 0 ? text.length : lt;
      if (lt < 0 || lt + name.length + 2 >= text.length) {
        if (lt < 0 && text.endsWith('<')) lt = text.length - 1; // `</` may straddle the next piece
        const kept = lt >= 0 && !final ? lt : text.length;
        this.#carry = text.slice(kept);
        this.#keepRawText(text.slice(from, kept));
        return null;
      }
      const after = text.charCodeAt(lt + 2 + name.length);
      if (asciiLower(text.slice(lt + 2, lt + 2 + name.length)) === name && (isSpace(after) || after === 0x2f || after === 0x3e)) {
        this.#keepRawText(text.slice(from, stop));
        if (this.#rawText !== null) this.#handler.title(decodeHTML(normalize(this.#rawText)));
        this.#rawText = null;
        this.#startTag(true);
        this.#tagName = name;
        this.#tagChars = 0;
        this.#tagStart = lt;
        this.#state = after === 0x3e ? S.Data : after === 0x2f ? S.SelfClosing : S.BeforeAttrName;
        return lt + 3 + name.length;
      }
      at = lt + 2;
    }
  }

  #keepRawText(part: string): void {
    if (this.#rawText === null) return;
    this.#rawText += part;
    if (this.#rawText.length > MAX_ATTRIBUTE_CHARS) {
      throw new ContentLimitError(`the page's <title> is longer than ${MAX_ATTRIBUTE_CHARS} characters (larder's limit)`);
    }
  }
}
