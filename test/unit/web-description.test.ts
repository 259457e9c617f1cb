/** The Markdown renderer and the sanitizer configuration of the web pages (what the description worker runs). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { descriptionKind, newMarkdownIt, preformatted, renderMarkdown, sanitize } from '../../src/web/description.js';

const markdown = newMarkdownIt();
const md = (text: string) => renderMarkdown(markdown, text);

describe('description rendering', () => {
  test('Markdown is rendered: headings, lists, code, tables, links', () => {
    const html = md('# Title\n\n- one\n- two\n\n```python\nprint(1)\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[docs](https://example.test/docs)');
    assert.match(html, /<h1>Title<\/h1>/);
    assert.match(html, /<li>one<\/li>/);
    assert.match(html, /<pre><code class="language-python">print\(1\)/);
    assert.match(html, /<td>1<\/td>/);
    assert.match(html, /<a href="https:\/\/example.test\/docs" rel="nofollow noopener noreferrer">docs<\/a>/);
  });

  test('scripts, event handlers, javascript: and data: links, styles, frames and forms are removed', () => {
    const html = md(
      [
        '<script>window.pwned = 1</script>',
        '<img src="x" onerror="window.pwned = 2">',
        '<a href="javascript:window.pwned = 3">click</a>',
        '[md link](javascript:window.pwned=4)',
        '<a href="JaVaScRiPt&colon;alert(5)">entity</a>',
        '<a href="data:text/html,<script>alert(6)</script>">data</a>',
        '<iframe src="https://evil.test/"></iframe>',
        '<form action="https://evil.test/"><input name="x"></form>',
        '<div style="background:url(javascript:alert(7))" onclick="alert(8)">styled</div>',
        '<svg><script>alert(9)</script></svg>',
        '<style>body{display:none}</style>',
      ].join('\n\n'),
    );
    assert.doesNotMatch(html, /<script|\bon\w+=|(href|src)="\s*(javascript|data):|<iframe|<form|style=|<style|<svg/i);
    assert.match(html, /\[md link\]\(javascript:window.pwned=4\)/, 'markdown-it leaves a javascript: link as text');
    assert.match(html, /<img src="x" \/>|<img src="x">/);
    assert.match(html, />click<\/a>/, 'the link text stays, without its href');
  });

  test('http(s) and mailto links and images stay; every link gets rel=nofollow', () => {
    const html = sanitize(
      '<a href="mailto:a@example.test">mail</a> <a href="http://example.test/" rel="author">web</a> <img src="https://example.test/i.png" alt="i">',
    );
    assert.match(html, /<a href="mailto:a@example.test" rel="nofollow noopener noreferrer">mail<\/a>/);
    assert.match(html, /<a href="http:\/\/example.test\/" rel="nofollow noopener noreferrer">web<\/a>/);
    assert.match(html, /<img src="https:\/\/example.test\/i.png" alt="i" \/>/);
  });

  test('text shown as it is is escaped preformatted text', () => {
    assert.equal(
      preformatted('Title\n=====\n\n<script>alert(1)</script> `link <javascript:alert(2)>`_'),
      '<pre class="description-text">Title\n=====\n\n&lt;script&gt;alert(1)&lt;/script&gt; `link &lt;javascript:alert(2)&gt;`_</pre>',
    );
  });

  test('content types are read by their type alone', () => {
    assert.equal(descriptionKind('TEXT/MARKDOWN; variant=CommonMark'), 'markdown');
    assert.equal(descriptionKind('text/x-rst'), 'text');
    assert.equal(descriptionKind(null), 'text');
  });
});
