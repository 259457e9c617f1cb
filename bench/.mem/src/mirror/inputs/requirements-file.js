/**
 * pip requirements files: one requirement a line, `\` continuations, `#` comments, per-requirement
 * `--hash=sha256:…`, `-r FILE` includes and `-c FILE` constraints (relative to the including file). Index
 * and install options are ignored; URL, path and editable requirements are reported as not mirrorable.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InputError, parseRequirement } from '../requirement.js';
function logicalLines(content) {
    const out = [];
    let pending = '';
    let start = 0;
    content.split(/\r?\n/).forEach((raw, i) => {
        if (!pending)
            start = i + 1;
        // A comment starts at `#` at the line's start or after whitespace (pip's COMMENT_RE).
        const line = raw.replace(/(^|\s+)#.*$/, '');
        if (line.endsWith('\\')) {
            pending += `${line.slice(0, -1)} `;
            return;
        }
        const text = `${pending}${line}`.trim();
        pending = '';
        if (text)
            out.push({ text, number: start });
    });
    if (pending.trim())
        out.push({ text: pending.trim(), number: start });
    return out;
}
const OPTION_WITH_VALUE = /^(-i|--index-url|--extra-index-url|-f|--find-links|--trusted-host|--use-feature|--no-binary|--only-binary|--platform|--python-version|--implementation|--abi)(?:[ =]\S+)?$/;
function readInto(path, into, asConstraints, seen) {
    const file = resolve(path);
    if (seen.has(file))
        return;
    seen.add(file);
    let content;
    try {
        content = readFileSync(file, 'utf8');
    }
    catch (err) {
        throw new InputError(`cannot read ${path}: ${err.code ?? err.message}`);
    }
    for (const { text, number } of logicalLines(content)) {
        const origin = `${path}:${number}`;
        const include = /^(-r|--requirement|-c|--constraint)(?:\s*=\s*|\s+)(\S+)$/.exec(text);
        if (include) {
            const constraint = include[1] === '-c' || include[1] === '--constraint';
            readInto(resolve(dirname(file), include[2]), into, asConstraints || constraint, seen);
            continue;
        }
        if (/^(-e|--editable)\b/.test(text)) {
            into.skipped.push(`${origin}: editable requirement '${text}' is not mirrorable`);
            continue;
        }
        if (text.startsWith('-')) {
            if (!OPTION_WITH_VALUE.test(text) && !/^--(pre|no-index|prefer-binary|require-hashes|no-deps)$/.test(text)) {
                into.skipped.push(`${origin}: option '${text}' ignored`);
            }
            continue;
        }
        const hashes = [];
        const requirement = text
            .replace(/\s--hash[ =](\w+):([0-9a-fA-F]+)/g, (_m, algo, hex) => {
            if (algo === 'sha256')
                hashes.push(hex.toLowerCase());
            return '';
        })
            .replace(/\s--(global-option|config-settings)[ =]\S+/g, '')
            .trim();
        if (/^(\.|\/|file:|https?:|git\+)/.test(requirement)) {
            into.skipped.push(`${origin}: '${requirement}' is a path or URL, not a project on the index`);
            continue;
        }
        const parsed = parseRequirement(requirement, origin, hashes);
        if (!parsed) {
            into.skipped.push(`${origin}: '${requirement}' is a URL requirement, not a project on the index`);
            continue;
        }
        (asConstraints ? into.constraints : into.requirements).push(parsed);
    }
}
export function readRequirementsFile(path, into) {
    readInto(path, into, false, new Set());
}
