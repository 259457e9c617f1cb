/** Fields whose folded lines are separate lines of text, not one wrapped line. */
const MULTILINE_FIELDS = new Set(['description', 'license']);
export function parseCoreMetadata(text) {
    const { headers, body } = splitMessage(text.replace(/^\ufeff/, ''));
    const one = (field) => headers.get(field)?.[0] ?? null;
    const all = (field) => headers.get(field) ?? [];
    const listOrNull = (field) => (all(field).length > 0 ? all(field) : null);
    const name = one('name');
    const version = one('version');
    if (!name)
        throw new Error('core metadata: the Name field is missing');
    if (!version)
        throw new Error('core metadata: the Version field is missing');
    return {
        name,
        version,
        summary: one('summary'),
        description: headers.has('description') ? one('description') : body || null,
        description_content_type: one('description-content-type'),
        author: one('author'),
        author_email: one('author-email'),
        maintainer: one('maintainer'),
        maintainer_email: one('maintainer-email'),
        license: one('license'),
        license_expression: one('license-expression'),
        license_files: listOrNull('license-file'),
        keywords: one('keywords'),
        home_page: one('home-page'),
        download_url: one('download-url'),
        platform: one('platform'),
        requires_python: one('requires-python') || null,
        requires_dist: listOrNull('requires-dist'),
        provides_extra: listOrNull('provides-extra'),
        dynamic: listOrNull('dynamic'),
        classifiers: all('classifier'),
        project_urls: projectUrls(all('project-url')),
    };
}
/** Header values by lowercase field name, in order, and the body (line breaks as `\n`). */
function splitMessage(text) {
    const lines = text.split(/\r\n?|\n/);
    const raw = [];
    let i = 0;
    for (; i < lines.length; i++) {
        const line = lines[i];
        if (line === '') {
            i++;
            break;
        }
        const last = raw.at(-1);
        if ((line[0] === ' ' || line[0] === '\t') && last) {
            last.lines.push(line);
            continue;
        }
        const colon = line.indexOf(':');
        if (colon <= 0)
            break; // not a header: like Python's email parser, the body starts here
        raw.push({ field: line.slice(0, colon).trim().toLowerCase(), lines: [line.slice(colon + 1).replace(/^[ \t]+/, '')] });
    }
    const headers = new Map();
    for (const { field, lines: valueLines } of raw) {
        const value = MULTILINE_FIELDS.has(field) ? unfoldKeepingLines(valueLines) : unfold(valueLines);
        const values = headers.get(field);
        if (values)
            values.push(value);
        else
            headers.set(field, [value]);
    }
    return { headers, body: lines.slice(i).join('\n') };
}
function unfold(lines) {
    return lines
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .join(' ');
}
/** Continuation lines are indented by 8 spaces, or by 7 and a `|` (PEP 345); the indent is not text. */
function unfoldKeepingLines(lines) {
    const [first, ...rest] = lines;
    const text = [first, ...rest.map((line) => (/^(?: {7}\|| {8})/.test(line) ? line.slice(8) : line.replace(/^[ \t]/, '')))];
    return text.join('\n').replace(/^\n+/, '').trimEnd();
}
/** `Label, https://...` entries; an entry without a comma has no label and is dropped (as Warehouse refuses it). */
function projectUrls(entries) {
    const urls = {};
    for (const entry of entries) {
        const comma = entry.indexOf(',');
        if (comma < 0)
            continue;
        const label = entry.slice(0, comma).trim();
        const url = entry.slice(comma + 1).trim();
        if (label && url)
            urls[label] = url;
    }
    return Object.keys(urls).length > 0 ? urls : null;
}
