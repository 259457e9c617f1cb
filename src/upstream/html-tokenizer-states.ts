/** The states of the HTML tokenizer (html-tokenizer.ts), named as in the HTML standard's tokenization section. */
export const TokenizerState = {
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
export type TokenizerState = (typeof TokenizerState)[keyof typeof TokenizerState];

/** Whether the state is inside a tag, from its `<` to its `>` (the states numbered TagOpen..SelfClosing). */
export const inTag = (state: TokenizerState) => state >= TokenizerState.TagOpen && state <= TokenizerState.SelfClosing;

/** Elements whose content is text up to their end tag (with scripting on, as in a browser and parse5). */
export const RAW_TEXT_ELEMENTS: ReadonlySet<string> = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'title', 'textarea']);
