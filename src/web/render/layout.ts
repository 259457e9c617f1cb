/** The frame of every web page: head, header with the search box and the login state, main landmark, footer. */
import { LARDER_VERSION } from '../../base/version.js';
import { escapeHtml } from '../../render/html-escape.js';
import { ASSET_VERSION } from './assets.js';

/** Who is looking, as the frame shows it. */
export interface Viewer {
  user: string | null;
  /** The form token of the viewer's session (for the log-out button and owner actions). */
  formToken: string | null;
  /** Logged in with HTTP Basic (the browser keeps the credentials; there is no log-out). */
  viaBasic: boolean;
}

export const ANONYMOUS: Viewer = { user: null, formToken: null, viaBasic: false };

export interface PageFrame {
  title: string;
  viewer: Viewer;
  /** Pre-fills the search box. */
  query?: string;
  /** Where the login link returns to. */
  path?: string;
}

export const esc = escapeHtml;

function accountPart(frame: PageFrame): string {
  const { viewer } = frame;
  if (!viewer.user) {
    const next = frame.path && frame.path !== '/account/login/' ? `?next=${encodeURIComponent(frame.path)}` : '';
    return `<a href="/account/login/${esc(next)}">Log in</a>`;
  }
  const who = `<span class="viewer">Logged in as <strong>${esc(viewer.user)}</strong></span> <a href="/account/">Account</a>`;
  if (viewer.viaBasic || !viewer.formToken) return who;
  return `${who} <form method="post" action="/account/logout/" class="inline"><input type="hidden" name="csrf" value="${esc(viewer.formToken)}"><button type="submit" class="link">Log out</button></form>`;
}

export function page(frame: PageFrame, main: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(frame.title)} · larder</title>
<link rel="stylesheet" href="/static/larder.css?v=${ASSET_VERSION}">
<script src="/static/larder.js?v=${ASSET_VERSION}" defer></script>
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<header class="site">
<div class="bar">
<a class="brand" href="/">larder</a>
<form class="search" role="search" method="get" action="/search/">
<label for="search-q" class="visually-hidden">Search projects</label>
<input id="search-q" type="search" name="q" value="${esc(frame.query ?? '')}" placeholder="Search projects" autocomplete="off">
<button type="submit">Search</button>
</form>
<nav aria-label="Site"><a href="/help/">Help</a> ${accountPart(frame)}</nav>
</div>
</header>
<main id="content" tabindex="-1">
${main}
</main>
<footer class="site"><p>larder ${esc(LARDER_VERSION)} · <a href="/simple/">Simple index</a> · <a href="/stats/">Statistics</a> · <a href="/help/">Help</a></p></footer>
</body>
</html>
`;
}

/** A block of text with a Copy button (added by the script; the text stays selectable without it). */
export function copyBlock(label: string, text: string): string {
  return `<div class="copyable" data-copy="${esc(label)}"><pre><code>${esc(text)}</code></pre></div>`;
}

/** `2026-11-25 18:12 UTC` from an ISO time or ms since the epoch. */
export function formatTime(time: string | number | null): string {
  if (time === null) return '';
  const date = new Date(time);
  if (Number.isNaN(date.getTime())) return '';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function timeElement(time: string | number | null): string {
  const text = formatTime(time);
  return text ? `<time datetime="${esc(new Date(time!).toISOString())}">${esc(text)}</time>` : '';
}
