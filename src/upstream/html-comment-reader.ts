/**
 * The HTML tokenizer's comment states, from the `<!--` to the `-->`. The comment's text is kept up to
 * MAX_KEPT_COMMENT_CHARS characters and reported when it ends; longer comments are skipped.
 */
import { MAX_KEPT_COMMENT_CHARS } from './content-limits.js';
import { normalize } from './html-text.js';
import { TokenizerState as S } from './html-tokenizer-states.js';

export type CommentState =
  | typeof S.CommentStart
  | typeof S.CommentStartDash
  | typeof S.Comment
  | typeof S.CommentEndDash
  | typeof S.CommentEnd
  | typeof S.CommentEndBang;

export class CommentReader {
  readonly #onComment: (text: string) => void;
  #text = '';
  #tooLong = false;
  /** The tokenizer's state after the last step. */
  nextState: S = S.Data;

  constructor(onComment: (text: string) => void) {
    this.#onComment = onComment;
  }

  /** A comment begins (after its `<!--`). */
  begin(): void {
    this.#text = '';
    this.#tooLong = false;
  }

  /** Reads `text` at `i` in `state`; sets nextState and returns where to go on (`i` itself when that state reads the same character). */
  step(state: CommentState, text: string, i: number): number {
    const c = text.charCodeAt(i);
    switch (state) {
      case S.CommentStart:
      case S.CommentStartDash:
        if (c === 0x3e /* > */) return this.#end(i);
        if (c === 0x2d /* - */) return this.#to(state === S.CommentStart ? S.CommentStartDash : S.CommentEnd, i + 1);
        if (state === S.CommentStartDash) this.#keep('-');
        return this.#to(S.Comment, i);
      case S.Comment: {
        const dash = text.indexOf('-', i);
        this.#keep(text.slice(i, dash < 0 ? text.length : dash));
        return dash < 0 ? this.#to(S.Comment, text.length) : this.#to(S.CommentEndDash, dash + 1);
      }
      case S.CommentEndDash:
        if (c === 0x2d) return this.#to(S.CommentEnd, i + 1);
        this.#keep('-');
        return this.#to(S.Comment, i);
      case S.CommentEnd:
        if (c === 0x3e) return this.#end(i);
        if (c === 0x21 /* ! */) return this.#to(S.CommentEndBang, i + 1);
        if (c === 0x2d) {
          this.#keep('-');
          return this.#to(S.CommentEnd, i + 1);
        }
        this.#keep('--');
        return this.#to(S.Comment, i);
      case S.CommentEndBang:
        if (c === 0x3e) return this.#end(i);
        this.#keep('--!');
        return c === 0x2d ? this.#to(S.CommentEndDash, i + 1) : this.#to(S.Comment, i);
    }
  }

  #to(state: S, next: number): number {
    this.nextState = state;
    return next;
  }

  #keep(part: string): void {
    if (this.#tooLong) return;
    this.#text += part;
    if (this.#text.length > MAX_KEPT_COMMENT_CHARS) {
      this.#tooLong = true;
      this.#text = '';
    }
  }

  /** The comment ends at `i` (its `>`): it is reported unless it was too long. */
  #end(i: number): number {
    if (!this.#tooLong) this.#onComment(normalize(this.#text));
    this.#text = '';
    return this.#to(S.Data, i + 1);
  }
}
