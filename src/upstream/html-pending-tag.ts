/**
 * The HTML tag the tokenizer is reading: its name, its attributes so far and the one being read, and its
 * size, each checked against content-limits.ts as it grows.
 */
import { decodeHTMLAttribute } from 'entities';
import { ContentLimitError, MAX_ATTRIBUTE_CHARS, MAX_ATTRIBUTES_PER_TAG, MAX_TAG_CHARS } from './content-limits.js';
import { asciiLower, normalize } from './html-text.js';

export class PendingTag {
  endTag = false;
  name = '';
  attributes = new Map<string, string>();
  /** The attribute being read: its name and value as written. */
  attrName = '';
  attrValue = '';
  /** Characters of the tag read in earlier pieces. */
  chars = 0;
  #attributeCount = 0;

  /** Characters held for the tag's name and the attribute being read. */
  get heldChars(): number {
    return this.name.length + this.attrName.length + this.attrValue.length;
  }

  start(endTag: boolean): void {
    this.endTag = endTag;
    this.name = '';
    this.attributes = new Map();
    this.#attributeCount = 0;
  }

  newAttribute(): void {
    this.#attributeCount += 1;
    if (this.#attributeCount > MAX_ATTRIBUTES_PER_TAG) {
      throw new ContentLimitError(`a <${this.name}> tag has more than ${MAX_ATTRIBUTES_PER_TAG} attributes (larder's limit)`);
    }
    this.attrName = '';
    this.attrValue = '';
  }

  appendValue(part: string): void {
    this.attrValue += part;
    if (this.attrValue.length > MAX_ATTRIBUTE_CHARS) {
      throw new ContentLimitError(`an attribute of a <${this.name}> tag is longer than ${MAX_ATTRIBUTE_CHARS} characters (larder's limit)`);
    }
  }

  /** Ends the attribute being read; of a repeated name the first value wins. */
  endAttribute(): void {
    const name = asciiLower(this.attrName);
    if (name !== '' && !this.attributes.has(name)) this.attributes.set(name, decodeHTMLAttribute(normalize(this.attrValue)));
    this.attrName = '';
    this.attrValue = '';
  }

  addChars(count: number): void {
    this.chars += count;
    if (this.chars > MAX_TAG_CHARS) {
      throw new ContentLimitError(`a <${this.name || '…'}> tag is longer than ${MAX_TAG_CHARS} characters (larder's limit)`);
    }
  }

  /** The finished tag's name and attributes; the tag is cleared. */
  take(): { name: string; attributes: Map<string, string> } {
    const taken = { name: this.name, attributes: this.attributes };
    this.name = '';
    this.attributes = new Map();
    return taken;
  }
}
