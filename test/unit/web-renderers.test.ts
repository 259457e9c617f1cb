/** The page renderers of the web UI: escaping, landmarks and labels, owner controls, snippets. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Release, ReleaseMetadata } from '../../src/model/documents.js';
import { renderHelp } from '../../src/web/render/help.js';
import { renderHome } from '../../src/web/render/home.js';
import { ANONYMOUS, type Viewer } from '../../src/web/render/layout.js';
import { renderLogin } from '../../src/web/render/login.js';
import { MAX_LISTED_VERSIONS, type ProjectView, renderProject } from '../../src/web/render/project.js';
import { renderSearch } from '../../src/web/render/search.js';
import { installSnippets, publishSnippets } from '../../src/web/render/snippets.js';
import { fileEntry } from '../helpers/model-builders.js';

const OWNER: Viewer = { user: 'alice', formToken: 'TOKEN"<', viaBasic: false };

function release(version: string, extra: Partial<Release> = {}, meta: Partial<ReleaseMetadata> = {}): Release {
  const metadata = { name: 'Acme', version, summary: 'Widgets <b>for</b> all', requires_python: '>=3.9', project_urls: {}, ...meta } as ReleaseMetadata;
  const file = {
    ...fileEntry(`acme-${version}.tar.gz`, { size: 2048, uploadTime: '2026-11-25T12:00:00Z' }),
    packagetype: 'sdist',
    pythonVersion: 'source',
    comment: null,
  };
  return { version, metadata, yanked: false, yankedReason: null, files: [file], ...extra };
}

function view(over: Partial<ProjectView> = {}): ProjectView {
  const releases = [release('2.0'), release('1.0', { yanked: true, yankedReason: 'broken <build>' })];
  return {
    name: 'acme',
    displayName: 'Acme',
    origin: 'private',
    releases,
    release: releases[0]!,
    latest: true,
    descriptionHtml: '<p>described</p>',
    installLine: 'pip install --index-url http://h/simple/ Acme',
    canManage: false,
    notice: null,
    held: [],
    ...over,
  };
}

describe('web page renderers', () => {
  test('every page has landmarks, a labelled search box, the one stylesheet and no external resource', () => {
    for (const html of [
      renderProject(view(), ANONYMOUS),
      renderSearch('x', 'x', 1, { total: 0, hits: [] }, ANONYMOUS),
      renderLogin('/', null, ANONYMOUS, false),
      renderHelp({ base: 'http://h:3142', readAuth: false }, { maxUploadSize: 1e9, upstream: null, offline: false }, ANONYMOUS),
    ]) {
      assert.match(html, /<html lang="en">/);
      assert.match(html, /<meta name="viewport"/);
      assert.match(html, /<header class="site">[\s\S]*<main id="content"[\s\S]*<\/main>[\s\S]*<footer/);
      assert.match(html, /<label for="search-q"[^>]*>Search projects<\/label>/);
      assert.match(html, /<a class="skip" href="#content">/);
      assert.doesNotMatch(html, /(src|href)="(https?:)?\/\/(?!h[:/])/, 'no external resource');
      assert.equal(html.match(/rel="stylesheet"/g)?.length, 1);
    }
  });

  test('the project page escapes metadata and marks yanked releases with the reason', () => {
    const yanked = view();
    yanked.release = yanked.releases[1]!;
    yanked.latest = false;
    const html = renderProject(yanked, ANONYMOUS);
    assert.ok(html.includes('Widgets &lt;b&gt;for&lt;/b&gt; all'));
    assert.ok(html.includes('<strong>Yanked:</strong> broken &lt;build&gt;'));
    assert.ok(html.includes('<code>&gt;=3.9</code>'));
    assert.ok(html.includes('href="/packages/acme/acme-1.0.tar.gz"'));
    assert.ok(html.includes('2.0 kB') || html.includes('2.0 KB'));
    assert.ok(html.includes('<time datetime="2026-11-25T12:00:00.000Z">2026-11-25 12:00 UTC</time>'));
    assert.match(html, /<a href="\/project\/acme\/1.0\/" aria-current="page">1.0<\/a> <span class="badge yanked">yanked<\/span>/);
  });

  test('the project page lists the newest MAX_LISTED_VERSIONS versions and counts the others', () => {
    const releases = Array.from({ length: MAX_LISTED_VERSIONS + 1_234 }, (_, i) => release(`1.${MAX_LISTED_VERSIONS + 1_234 - i}`));
    const html = renderProject(view({ releases, release: releases[0]! }), ANONYMOUS);
    const listed = html.match(/<li><a href="\/project\/acme\/[^"]+\/"/g) ?? [];
    assert.equal(listed.length, MAX_LISTED_VERSIONS);
    assert.ok(html.includes(`<li><a href="/project/acme/1.1235/">1.1235</a>`), 'the last one listed');
    assert.ok(!html.includes('"/project/acme/1.1234/"'), 'the first one counted');
    assert.ok(html.includes('and 1,234 more, all listed in <a href="/pypi/acme/json">the JSON API</a>'));
    assert.ok(!renderProject(view(), ANONYMOUS).includes('more, all listed'), 'a short list is whole');
  });

  test('project links: only http(s), with rel=nofollow', () => {
    const v = view();
    v.release = release(
      '2.0',
      {},
      { project_urls: { Docs: 'https://docs.example.test/', Evil: 'javascript:alert(1)' }, home_page: 'http://home.example.test/' },
    );
    const html = renderProject(v, ANONYMOUS);
    assert.ok(html.includes('<a href="https://docs.example.test/" rel="nofollow noopener noreferrer">Docs</a>'));
    assert.ok(html.includes('<a href="http://home.example.test/" rel="nofollow noopener noreferrer">Homepage</a>'));
    assert.ok(!html.includes('javascript:'));
  });

  test('owner controls only for viewers who may manage, with the form token escaped', () => {
    assert.ok(!renderProject(view(), OWNER).includes('/yank'), 'a viewer who may not manage sees no form');
    assert.ok(!renderProject(view({ canManage: true }), ANONYMOUS).includes('/yank'));
    const html = renderProject(view({ canManage: true }), OWNER);
    assert.ok(html.includes('action="/project/acme/2.0/yank"'));
    assert.ok(html.includes('<input type="hidden" name="csrf" value="TOKEN&quot;&lt;">'));
    assert.match(html, /<label for="yank-reason">/);
    const yanked = view({ canManage: true });
    yanked.release = yanked.releases[1]!;
    assert.ok(renderProject(yanked, OWNER).includes('action="/project/acme/1.0/unyank"'));
  });

  test('search results page: counts, kinds and page links keep the query', () => {
    const hits = Array.from({ length: 20 }, (_, i) => ({ name: `P${i}`, normalized: `p${i}`, kind: i === 0 ? ('private' as const) : ('upstream' as const) }));
    const html = renderSearch('a&b', 'a-b', 2, { total: 45, hits }, ANONYMOUS);
    assert.ok(html.includes('45 projects match <strong>a-b</strong>; showing 21–40 (page 2 of 3)'));
    assert.ok(html.includes('href="/search/?q=a%26b&amp;page=1" rel="prev"'));
    assert.ok(html.includes('href="/search/?q=a%26b&amp;page=3" rel="next"'));
    assert.ok(html.includes('value="a&amp;b"'));
  });

  test('snippets carry the public URL; trusted-host only for http, credentials only with read auth', () => {
    const http = installSnippets({ base: 'http://larder.example:3142', readAuth: false });
    assert.equal(http[0]!.text, 'pip install --index-url http://larder.example:3142/simple/ --trusted-host larder.example PROJECT');
    assert.match(http.find((s) => s.id === 'pdm')!.text, /verify_ssl = false/);
    const https = installSnippets({ base: 'https://pkgs.example', readAuth: true });
    assert.equal(https[0]!.text, 'pip install --index-url https://USER:PASSWORD@pkgs.example/simple/ PROJECT');
    assert.match(https.find((s) => s.id === 'pip-conf')!.text, /^\[global\]\nindex-url = https:\/\/USER:PASSWORD@pkgs.example\/simple\/$/);
    assert.match(publishSnippets({ base: 'https://pkgs.example', readAuth: false })[0]!.text, /repository = https:\/\/pkgs.example\/legacy\//);
  });

  test('the home page states the upstream and offline mode', () => {
    const summary = {
      privateProjects: 2,
      privateFiles: { files: 3, bytes: 4000 },
      cachedProjects: 7,
      upstream: 'https://pypi.org/simple/',
      offline: true,
      upstreamList: { fetchedAt: Date.UTC(2026, 10, 25), count: 600_000 },
    };
    const html = renderHome(summary, { base: 'http://h:3142', readAuth: false }, ANONYMOUS);
    assert.ok(html.includes('<dt>Private projects</dt><dd>2 (3 files, 4.0 KB)</dd>'));
    assert.ok(html.includes('<dt>Cached upstream projects</dt><dd>7</dd>'));
    assert.ok(html.includes('offline</span>'));
    assert.ok(html.includes('project list of 600,000 names stored'));
    for (const tool of ['pip', 'pip.conf', 'uv', 'poetry', 'pdm', 'twine and flit (.pypirc)']) assert.ok(html.includes(`<h3>${tool} `), tool);
    assert.ok(html.includes('repository = http://h:3142/legacy/'));
  });
});
