/**
 * A release's long description as safe HTML: Markdown (`text/markdown`) rendered with markdown-it, anything
 * else (reStructuredText, plain text, no content type) shown as preformatted text. Everything goes through
 * sanitize-html: no scripts, styles, event handlers, frames or forms, links only to http(s) and mailto,
 * and every link gets `rel="nofollow noopener noreferrer"`.
 */
import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { escapeHtml } from '../render/html-escape.js';

export const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags.filter((tag) => tag !== 'style'), 'img', 'del', 'ins', 'details', 'summary', 'input'],
  allowedAttributes: {
    a: ['href', 'title', 'id', 'name', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    code: ['class'],
    pre: ['class'],
    th: ['align', 'colspan', 'rowspan'],
    td: ['align', 'colspan', 'rowspan'],
    ol: ['start'],
    h1: ['id'],
    h2: ['id'],
    h3: ['id'],
    h4: ['id'],
    input: ['type', 'checked', 'disabled'],
  },
  allowedClasses: { code: [/^language-[\w-]+$/], pre: [/^language-[\w-]+$/] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
  transformTags: {
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'nofollow noopener noreferrer' } }),
    input: (tagName, attribs) => ({ tagName, attribs: { ...attribs, disabled: '' } }),
  },
};

/** Turns a content type as uploads send it (`text/markdown; charset=UTF-8; variant=GFM`) into its kind. */
export function descriptionKind(contentType: string | null): 'markdown' | 'text' {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'text/markdown' ? 'markdown' : 'text';
}

export class DescriptionRenderer {
  private readonly markdown = new MarkdownIt({ html: true, linkify: true, typographer: false });

  /** Sanitized HTML for a description; '' when there is none. */
  render(description: string | null, contentType: string | null): string {
    if (!description?.trim()) return '';
    if (descriptionKind(contentType) === 'markdown') return sanitize(this.markdown.render(description));
    return `<pre class="description-text">${escapeHtml(description)}</pre>`;
  }
}

export function sanitize(html: string): string {
  return sanitizeHtml(html, SANITIZE_OPTIONS);
}
