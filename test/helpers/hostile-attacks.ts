/**
 * The attacks of issue 25 ("Hostile content"), and more of the same kinds, as the hostile-content suite and
 * bench/hostile.ts run them: each builds its input (unmeasured), then sends the hostile request(s). Sizes
 * follow the issue unless said otherwise.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { buildWheel } from '../fixtures/dists.js';
import * as inputs from '../fixtures/hostile-inputs.js';
import { sha256Hex } from '../fixtures/hashes.js';
import type { HostileAnswer } from './hostile-probe.js';
import { answerOf, send, type Attack, type AttackContext } from './hostile-lab.js';
import { PIP_ACCEPT } from './raw-get.js';
import { uploadForm } from './upload-form.js';

const HTML = 'text/html; charset=utf-8';
const PEP691 = 'application/vnd.pypi.simple.v1+json';
const MB = 1_000_000;

/**
 * An attack that serves `page` as the upstream's simple page of `project` and asks larder for that page.
 * Short project names: each file's name and URL repeat it, and the pages are meant to stay at the sizes.
 */
function upstreamPage(id: string, project: string, title: string, contentType: string, page: (project: string) => Buffer): Attack {
  return {
    id,
    title,
    async prepare({ lab }) {
      lab.upstream.setRawPage(`/simple/${project}/`, { contentType, body: page(project) });
    },
    async send({ url }, signal) {
      return answerOf(await send(`${url}/simple/${project}/`, { headers: { Accept: PIP_ACCEPT }, signal }));
    },
    cleanup({ lab }) {
      lab.upstream.setRawPage(`/simple/${project}/`, null);
    },
  };
}

interface UploadOptions {
  /** Nameless parts after the file (they carry no field). */
  extraParts?: number;
  /** Uploads sent at once, each as its own project (`<project>2`, …), so that no per-project lock serializes them. */
  copies?: number;
}

/** An attack that uploads the sdist `build` makes as `<project>-1.0.<extension>`. */
function upload(id: string, title: string, project: string, extension: string, build: () => Promise<Buffer> | Buffer, options: UploadOptions = {}): Attack {
  let bodies: inputs.MultipartBody[] = [];
  return {
    id,
    title,
    async prepare() {
      const file = await build();
      bodies = Array.from({ length: options.copies ?? 1 }, (_, i) => {
        const name = i === 0 ? project : `${project}${i + 1}`;
        const fields = {
          ':action': 'file_upload',
          protocol_version: '1',
          metadata_version: '2.1',
          name,
          version: '1.0',
          filetype: 'sdist',
          pyversion: 'source',
          sha256_digest: sha256Hex(file),
        };
        return inputs.uploadBody(fields, { filename: `${name}-1.0.${extension}`, bytes: file }, options.extraParts);
      });
    },
    async send({ url, lab }, signal) {
      const sent = await Promise.all(
        bodies.map(({ contentType, body }) => {
          const headers = { Authorization: lab.uploaderAuth, 'Content-Type': contentType, 'Content-Length': String(body.length) };
          return send(`${url}/legacy/`, { method: 'POST', headers, body, signal });
        }),
      );
      if (sent.length === 1) return answerOf(sent[0]!);
      const worst = sent.find((x) => x.status !== 400) ?? sent[0]!;
      return { ...answerOf(worst), firstLine: `${sent.length} answers ${[...new Set(sent.map((x) => x.status))].join('/')}; ${answerOf(worst).firstLine}` };
    },
    cleanup() {
      bodies = [];
    },
  };
}

const filename = (project: string) => `${project.replace(/-/g, '_')}-1.0-py3-none-any.whl`;

/** A project whose only wheel's `.metadata` (PEP 658, fetched from the upstream) carries `description`. */
function upstreamDescription(id: string, title: string, description: () => string): Attack {
  const project = `hostile-${id}`;
  return {
    id,
    title,
    async prepare({ lab }) {
      const wheel = filename(project);
      const metadata = inputs.metadataWithDescription(project, '1.0', description());
      const link = `<a href="/files/${wheel}#sha256=${inputs.fakeSha256(1)}" data-dist-info-metadata="sha256=${sha256Hex(metadata)}">${wheel}</a>`;
      const page = `<!DOCTYPE html><html><head><meta name="pypi:repository-version" content="1.0"></head><body>${link}</body></html>`;
      lab.upstream.setRawPage(`/simple/${project}/`, { contentType: HTML, body: Buffer.from(page) });
      lab.upstream.setRawPage(`/files/${wheel}.metadata`, { contentType: 'application/octet-stream', body: metadata });
    },
    async send({ url }, signal) {
      return answerOf(await send(`${url}/project/${project}/`, { signal }));
    },
    cleanup({ lab }) {
      lab.upstream.setRawPage(`/simple/${project}/`, null);
      lab.upstream.setRawPage(`/files/${filename(project)}.metadata`, null);
    },
  };
}

/** Sum of the sizes of the files in `dir` (0 when it does not exist). */
async function dirBytes(dir: string): Promise<{ bytes: number; temporary: number }> {
  let bytes = 0;
  let temporary = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const info = await stat(join(dir, name)).catch(() => null);
    bytes += info?.size ?? 0;
    if (name.endsWith('.tmp')) temporary++;
  }
  return { bytes, temporary };
}

const HOST_REQUESTS = 30;

/** 30 requests for the 600,000-name project list at once, each with a Host never seen, then the renderings they started. */
const hostHeader: Attack = {
  id: 'host-header-renderings',
  title: `${HOST_REQUESTS} × /simple/ (600,000 names), each with a new Host`,
  async prepare({ lab, url }) {
    lab.upstream.setRootFiller(600_000);
    const first = await send(`${url}/simple/`, { headers: { Accept: PIP_ACCEPT } });
    if (first.status !== 200) throw new Error(`the project list answered ${first.status}: ${first.firstLine}`);
  },
  async send({ url, lab }, signal) {
    const cache = join(lab.data, 'cache');
    const before = (await dirBytes(cache)).bytes;
    let peak = before;
    const sent = await Promise.all(
      Array.from({ length: HOST_REQUESTS }, (_, i) => send(`${url}/simple/`, { headers: { Accept: PIP_ACCEPT, Host: `mirror-${i}.example` }, signal })),
    );
    // Renderings a request started go on after its answer: wait until none is being written.
    for (;;) {
      const now = await dirBytes(cache);
      peak = Math.max(peak, now.bytes);
      if (now.temporary === 0 || signal.aborted) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const statuses = [...new Set(sent.map((s) => s.status))].join('/');
    const worst = sent.find((s) => s.status !== 200) ?? sent[0]!;
    return {
      status: worst.status,
      firstLine: `${HOST_REQUESTS} answers ${statuses}; data/cache grew by up to ${((peak - before) / MB).toFixed(0)} MB`,
      figures: { cacheGrowthBytes: peak - before },
    };
  },
  cleanup({ lab }) {
    lab.upstream.setRootFiller(0);
  },
};

/** An HTML-only upstream (no JSON API, no sizes) with 40,000 files: the JSON API document twice, then the web page. */
function htmlOnlyFiles(count: number): Attack {
  const project = `ho${count / 1000}k`;
  return {
    id: `html-only-${count}-files`,
    title: `upstream without a JSON API, ${count.toLocaleString('en')} files: /pypi/<p>/json twice, /project/<p>/`,
    async prepare({ lab }) {
      lab.upstream.setRawPage(`/simple/${project}/`, { contentType: HTML, body: inputs.manyLinksHtml(project, count) });
    },
    async send({ url }, signal) {
      const first = await send(`${url}/pypi/${project}/json`, { signal });
      const again = await send(`${url}/pypi/${project}/json`, { signal });
      const page = await send(`${url}/project/${project}/`, { signal });
      const s = (x: { ms: number }) => `${(x.ms / 1000).toFixed(1)} s`;
      const worst = [first, again, page].find((x) => x.status !== 200) ?? first;
      return {
        status: worst.status,
        firstLine: `json ${first.status} in ${s(first)}, again ${again.status} in ${s(again)}; /project/ ${page.status} in ${s(page)}`,
        figures: { firstMs: first.ms, againMs: again.ms, pageMs: page.ms },
      };
    },
    cleanup({ lab }) {
      lab.upstream.setRawPage(`/simple/${project}/`, null);
    },
  };
}

const LONG_NAMES_TITLE = 'sdist: 65,000 top-level names of 10,000 chars, 49× packed (~15 MB)';
const longNames = () => inputs.longTopLevelSdist(65_000, 10_000);

export interface HostileAttackSet {
  /** Run by the suite and the figures script. */
  suite: Attack[];
  /** Run by the figures script only: the largest sizes, whose conclusion a smaller one in the suite already shows. */
  benchOnly: Attack[];
}

/** A fresh set (the attacks keep their built inputs between prepare and send). */
export function hostileAttacks(): HostileAttackSet {
  const suite: Attack[] = [
    upload('sdist-long-top-level-names', LONG_NAMES_TITLE, 'longnames', 'tar.gz', longNames),
    upload('sdist-million-members', 'sdist: 1,000,000 members, 49× packed (~10 MB)', 'manymembers', 'tar.gz', () =>
      inputs.manyMembersSdist('manymembers', '1.0', 1_000_000),
    ),
    upload('zip-million-entries', 'sdist .zip: 1,000,000 central-directory entries (~56 MB)', 'manyentries', 'zip', () =>
      inputs.manyEntriesZip('manyentries', '1.0', 1_000_000),
    ),
    upload(
      'multipart-million-parts',
      'upload form of 1,000,000 nameless parts (~65 MB)',
      'manyparts',
      'tar.gz',
      () => inputs.manyMembersSdist('manyparts', '1.0', 1),
      {
        extraParts: 1_000_000,
      },
    ),
    upstreamPage('html-40k-attributes', 'ha40k', 'upstream HTML page: one <a> with 40,000 attributes (~0.8 MB)', HTML, (p) =>
      inputs.manyAttributesHtml(p, 40_000),
    ),
    upstreamPage('html-60mb-attribute', 'ha60m', 'upstream HTML page: one 60 MB attribute value', HTML, (p) => inputs.longAttributeHtml(p, 60 * MB)),
    upstreamPage('html-300k-links', 'hl300', 'upstream HTML page: 300,000 links (~53 MB)', HTML, (p) => inputs.manyLinksHtml(p, 300_000)),
    upstreamPage('json-40k-keys', 'jk40k', 'upstream PEP 691 page: one file with 40,000 keys (~0.8 MB)', PEP691, (p) => inputs.manyKeysJson(p, 40_000)),
    upstreamPage('json-60mb-value', 'jv60m', 'upstream PEP 691 page: one 60 MB yank reason', PEP691, (p) => inputs.longValueJson(p, 60 * MB)),
    upstreamPage('json-300k-files', 'jf300', 'upstream PEP 691 page: 300,000 files (~59 MB)', PEP691, (p) => inputs.manyFilesJson(p, 300_000)),
    privateDescription(),
    upstreamDescription('description-upstream-nested-divs', 'first view of a project whose upstream .metadata has 1 MB of nested <div> (Markdown)', () =>
      inputs.nestedDivs(MB),
    ),
    upstreamDescription('description-upstream-single-line', 'first view of a project whose upstream .metadata has a 9.5 MB one-line Markdown description', () =>
      '['.repeat(9.5 * MB),
    ),
    htmlOnlyFiles(40_000),
    hostHeader,
  ];
  const benchOnly: Attack[] = [
    upload('sdist-long-top-level-names-x8', `8 at once: ${LONG_NAMES_TITLE}`, 'longnames', 'tar.gz', longNames, { copies: 8 }),
    upstreamPage('html-470k-attributes', 'ha470', 'upstream HTML page: one <a> with 470,000 attributes (~9.5 MB)', HTML, (p) =>
      inputs.manyAttributesHtml(p, 470_000),
    ),
    htmlOnlyFiles(300_000),
  ];
  return { suite, benchOnly };
}

/** A private project uploaded with 1 MB of nested `<div>` as its Markdown description; the attack is its first view. */
function privateDescription(): Attack {
  const project = 'hostile-description-divs';
  return {
    id: 'description-upload-nested-divs',
    title: 'first view of an uploaded project whose description is 1 MB of nested <div> (Markdown)',
    async prepare({ url, lab }: AttackContext) {
      const wheel = await buildWheel(join(lab.tmp, project), { name: project, version: '1.0' });
      const form = await uploadForm(wheel, { description: inputs.nestedDivs(MB), description_content_type: 'text/markdown' });
      const res = await fetch(`${url}/legacy/`, { method: 'POST', body: form, headers: { Authorization: lab.uploaderAuth } });
      if (res.status !== 200) throw new Error(`the upload answered ${res.status}: ${await res.text()}`);
    },
    async send({ url }, signal): Promise<HostileAnswer> {
      return answerOf(await send(`${url}/project/${project}/`, { signal }));
    },
  };
}
