/** The root of a simple index (`/simple/`): every project name, with its serial where the index gives one. */
import { lazyRequire } from '../base/lazy-require.js';

const cheerio = () => lazyRequire('cheerio') as typeof import('cheerio');
import type { ProjectListEntry } from '../model/documents.js';
import { AnchorScanner, type Anchor } from './html-anchor-scanner.js';
import { RootJsonScanner } from './json-root-scanner.js';
import { isJsonObject, parseJsonText } from './json-util.js';
import { isSerial } from './simple-common.js';
import { decodeChunks } from './text-chunks.js';

export function parseRootJson(text: string): ProjectListEntry[] {
  const doc = parseJsonText(text, 'root JSON');
  if (!isJsonObject(doc)) throw new Error('root JSON: expected a JSON object');
  if (!Array.isArray(doc.projects)) throw new Error('root JSON: "projects" is missing or not an array');
  return doc.projects.map(entryFromJson).filter((entry) => entry !== null);
}

export function parseRootHtml(text: string): ProjectListEntry[] {
  const $ = cheerio().load(text);
  const entries: ProjectListEntry[] = [];
  $('a').each((_, el) => {
    const entry = entryFromAnchor({ href: el.attribs.href ?? null, text: $(el).text().trim() });
    if (entry) entries.push(entry);
  });
  return entries;
}

/** Like parseRootHtml, for a body that arrives in pieces; holds one unfinished anchor at most. */
export async function* parseRootHtmlStream(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<ProjectListEntry> {
  for await (const batch of parseRootHtmlBatches(chunks)) yield* batch;
}

/** parseRootHtmlStream, one batch of entries per piece of the body. */
export async function* parseRootHtmlBatches(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<ProjectListEntry[]> {
  const scanner = new AnchorScanner();
  const entriesOf = (anchors: Iterable<Anchor>) => {
    const batch: ProjectListEntry[] = [];
    for (const anchor of anchors) {
      const entry = entryFromAnchor(anchor);
      if (entry) batch.push(entry);
    }
    return batch;
  };
  for await (const text of decodeChunks(chunks)) yield entriesOf(scanner.push(text));
  yield entriesOf(scanner.finish());
}

/** Like parseRootJson, for a body that arrives in pieces; holds one project entry at most. */
export async function* parseRootJsonStream(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<ProjectListEntry> {
  for await (const batch of parseRootJsonBatches(chunks)) yield* batch;
}

/** parseRootJsonStream, one batch of entries per piece of the body. */
export async function* parseRootJsonBatches(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<ProjectListEntry[]> {
  const scanner = new RootJsonScanner();
  for await (const text of decodeChunks(chunks)) {
    const batch: ProjectListEntry[] = [];
    for (const item of scanner.push(text)) {
      const entry = entryFromJson(item);
      if (entry) batch.push(entry);
    }
    yield batch;
  }
  scanner.finish();
}

/** `{"name": "...", "_last-serial": n}`; anything else (e.g. a placeholder string) is skipped. */
function entryFromJson(item: unknown): ProjectListEntry | null {
  if (!isJsonObject(item) || typeof item.name !== 'string' || item.name === '') return null;
  const serial = item['_last-serial'];
  return isSerial(serial) ? { name: item.name, serial } : { name: item.name };
}

/** The link text is the display name; an empty text falls back to the last segment of the href. */
function entryFromAnchor(anchor: Anchor): ProjectListEntry | null {
  if (anchor.text !== '') return { name: anchor.text };
  const segment = (anchor.href ?? '').split(/[?#]/, 1)[0]?.split('/').filter(Boolean).at(-1);
  if (!segment) return null;
  try {
    return { name: decodeURIComponent(segment) };
  } catch {
    return { name: segment };
  }
}
