/** `/stats/`: the largest projects and the total size. */
import { escapeHtml } from './html-escape.js';
import { compareCodePoints, toWireJson } from './json-wire.js';
export const TOP_PACKAGES = 100;
/** The top TOP_PACKAGES projects by size, largest first; equal sizes by name. */
export function topPackages(stats) {
    return [...stats.projects].sort((a, b) => b.size - a.size || compareCodePoints(a.name, b.name)).slice(0, TOP_PACKAGES);
}
export function renderStatsJson(stats) {
    const top = {};
    for (const { name, size } of topPackages(stats))
        top[name] = { size };
    return toWireJson({ top_packages: top, total_packages_size: stats.total });
}
export function renderStatsHtml(stats) {
    const rows = topPackages(stats).map(({ name, size }, i) => `        <tr><td>${i + 1}</td><td>${escapeHtml(name)}</td><td>${size}</td></tr>\n`);
    return [
        '<!DOCTYPE html>',
        '<html lang="en">',
        '  <head>',
        '    <meta charset="utf-8">',
        '    <title>Statistics</title>',
        '  </head>',
        '  <body>',
        '    <h1>Statistics</h1>',
        `    <p>Total size of all packages: ${stats.total} bytes</p>`,
        `    <table>`,
        `      <caption>Top ${TOP_PACKAGES} packages by size</caption>`,
        '      <thead><tr><th>#</th><th>Project</th><th>Size (bytes)</th></tr></thead>',
        '      <tbody>',
        `${rows.join('')}      </tbody>`,
        '    </table>',
        '  </body>',
        '</html>',
        '',
    ].join('\n');
}
