/**
 * A release's long description as safe HTML: Markdown (`text/markdown`) rendered with markdown-it, anything
 * else (reStructuredText, plain text, no content type) shown as preformatted text. Markdown goes through
 * sanitize-html: no scripts, styles, event handlers, frames or forms, links only to http(s) and mailto,
 * and every link gets `rel="nofollow noopener noreferrer"`. Rendering Markdown may take seconds on hostile
 * input: it runs on the description worker (description-worker.ts); descriptions.ts decides what runs where.
 */
import type MarkdownIt from 'markdown-it';
import type sanitizeHtml from 'sanitize-html';
import { lazyRequire } from '../base/lazy-require.js';
import { escapeHtml } from '../render/html-escape.js';

// Loaded on the first description shown: most servers never render one, and both weigh on memory.
const markdownIt = () => lazyRequire('markdown-it') as typeof MarkdownIt;
const sanitizer = () => lazyRequire('sanitize-html') as typeof sanitizeHtml;

/** sanitize-html's default tags, less `style`, plus what READMEs use. */
const EXTRA_TAGS = ['img', 'del', 'ins', 'details', 'summary', 'input'];

export const SANITIZE_OPTIONS: Omit<sanitizeHtml.IOptions, 'allowedTags'> = {
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

export function newMarkdownIt(): MarkdownIt {
  return new (markdownIt())({ html: true, linkify: true, typographer: false });
}

/** Sanitized HTML of a Markdown description. */
export function renderMarkdown(markdown: MarkdownIt, text: string): string {
  return sanitize(markdown.render(text));
}

/** A description as escaped preformatted text: linear in its length, so fit for the main thread. */
export function preformatted(text: string): string {
  return `<pre class="description-text">${escapeHtml(text)}</pre>`;
}

export function sanitize(html: string): string {
  const sanitizeHtml = sanitizer();
  const allowedTags = [...sanitizeHtml.defaults.allowedTags.filter((tag) => tag !== 'style'), ...EXTRA_TAGS];
  return sanitizeHtml(html, { ...SANITIZE_OPTIONS, allowedTags });
}
