/**
 * The description HTML the project pages show, kept by a hash of the text and its kind, so that a second
 * view and every other version with the same description cost a hash. Markdown is rendered on the
 * description worker under a time limit (description-thread.ts); what the main thread does for a
 * description is linear in its length and bounded by the cap: hashing, escaping, truncating.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { descriptionKind, preformatted } from './description.js';
import type { Refusal, ThreadAnswer } from './description-thread.js';

/** Longest description shown (UTF-16 code units, about bytes for ASCII): longer ones are shown as text, cut here. */
export const DESCRIPTION_MAX_CHARS = 512 * 1024;
/** HTML kept in memory when not told, counted at two bytes a character. */
const CACHE_MAX_BYTES = 4 * 1024 * 1024;

export type DescriptionOutcome = 'rendered' | 'cached' | 'text' | 'too_large' | Refusal;

export interface DescriptionsOptions {
  maxChars?: number;
  /** Bytes of rendered HTML kept in memory (two a character). */
  cacheBytes?: number;
  /** Told how each description was answered (the `larder_description_renders_total` metric). */
  counted?: (outcome: DescriptionOutcome) => void;
}

const NOTES: Record<Refusal, string> = {
  timeout: 'This description took too long to render as Markdown; it is shown as plain text.',
  failed: 'This description could not be rendered as Markdown; it is shown as plain text.',
  unavailable: 'Descriptions cannot be rendered at the moment: this one is shown as plain text.',
  busy: 'Many descriptions are being rendered at the moment: this one is shown as plain text. Reload the page to see it rendered.',
  closed: 'This description is shown as plain text while the server stops.',
};

const note = (text: string) => `<p class="notice" role="note">${text}</p>\n`;

/** Cuts at `max`, never between the two halves of a surrogate pair. */
function cut(text: string, max: number): string {
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return text.slice(0, end);
}

export class Descriptions {
  private readonly maxChars: number;
  private readonly counted: (outcome: DescriptionOutcome) => void;
  private readonly cache: LRUCache<string, string>;
  /** First views under way, so that concurrent ones share one rendering. */
  private readonly pending = new Map<string, Promise<string>>();

  constructor(
    private readonly thread: { render(text: string): Promise<ThreadAnswer> },
    options: DescriptionsOptions = {},
  ) {
    this.maxChars = options.maxChars ?? DESCRIPTION_MAX_CHARS;
    this.counted = options.counted ?? (() => {});
    const maxSize = Math.max(Math.floor(options.cacheBytes ?? CACHE_MAX_BYTES), 1);
    this.cache = new LRUCache<string, string>({ maxSize, sizeCalculation: (html) => html.length * 2 + 100 });
  }

  /** Safe HTML for a release's description; '' when there is none. */
  async html(description: string | null, contentType: string | null): Promise<string> {
    if (!description || !/\S/.test(description)) return '';
    const kind = descriptionKind(contentType);
    // What is shown of a description over the cap depends on its length and what comes before the cap only.
    const shown = description.length > this.maxChars ? description.slice(0, this.maxChars) : description;
    const key = createHash('sha256').update(`${kind}\0${description.length}\0`).update(shown).digest('base64url');
    const known = this.cache.get(key);
    if (known !== undefined) {
      this.counted('cached');
      return known;
    }
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.produce(kind, description, key).finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }

  private async produce(kind: 'markdown' | 'text', description: string, key: string): Promise<string> {
    const { html, outcome } = await this.make(kind, description);
    this.counted(outcome);
    // These say nothing of the description: the next view tries again.
    if (outcome !== 'busy' && outcome !== 'closed' && outcome !== 'unavailable') this.cache.set(key, html);
    return html;
  }

  private async make(kind: 'markdown' | 'text', description: string): Promise<{ html: string; outcome: DescriptionOutcome }> {
    if (description.length > this.maxChars) {
      const count = (n: number) => n.toLocaleString('en-US');
      const text = `This description is ${count(description.length)} characters long: only its first ${count(this.maxChars)} are shown, as plain text.`;
      return { html: note(text) + preformatted(cut(description, this.maxChars)), outcome: 'too_large' };
    }
    if (kind === 'text') return { html: preformatted(description), outcome: 'text' };
    const answer = await this.thread.render(description);
    if ('html' in answer) return { html: answer.html, outcome: 'rendered' };
    return { html: note(NOTES[answer.refused]) + preformatted(description), outcome: answer.refused };
  }
}
