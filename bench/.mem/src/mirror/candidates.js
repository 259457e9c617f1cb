/**
 * Which files of a project page a target can use: compatible wheels, sdists only when asked for or when
 * a version has no compatible wheel, Requires-Python honoured, yanked files only for an exact pin. And
 * which versions satisfy a specifier (pre-releases only when nothing else does, as `packaging` does).
 */
import * as pep440 from '@renovatebot/pep440';
import { parseSdistFilename, parseWheelFilename } from '../model/filenames.js';
import { compareVersions } from '../model/versions.js';
import { wheelCompatible } from './tags.js';
import { pythonParts } from './target.js';
function pythonAllowed(requiresPython, target) {
    if (!requiresPython)
        return true;
    const full = pythonParts(target.python).join('.');
    const spec = requiresPython.replace(/\s+/g, '');
    if (!pep440.validRange(spec))
        return true;
    return pep440.satisfies(full, spec, { prereleases: true });
}
/** Versions (newest first) with the files `target` would take of each. */
export function usableFiles(page, target, options, allowYanked) {
    const wheels = new Map();
    const sdists = new Map();
    for (const file of page.files) {
        if (!file.version || pep440.valid(file.version) === null)
            continue;
        if (file.yanked && !allowYanked(file.version))
            continue;
        if (!pythonAllowed(file.requiresPython, target))
            continue;
        const wheel = parseWheelFilename(file.filename);
        const into = wheel ? (wheelCompatible(wheel, target) ? wheels : null) : parseSdistFilename(file.filename) ? sdists : null;
        if (!into)
            continue;
        const list = into.get(file.version) ?? [];
        list.push(file);
        into.set(file.version, list);
    }
    const versions = [...new Set([...wheels.keys(), ...sdists.keys()])].sort((a, b) => compareVersions(b, a));
    const out = new Map();
    for (const v of versions) {
        const w = wheels.get(v) ?? [];
        const s = sdists.get(v) ?? [];
        out.set(v, options.sdists || w.length === 0 ? [...w, ...s] : w);
    }
    return out;
}
/** True when the specifier pins one version exactly (`==1.0`, `===1.0`): then yanked files may be chosen (PEP 592). */
export const isExactPin = (specifier, version) => specifier
    .split(',')
    .some((s) => /^===?/.test(s) && !s.includes('*') && pep440.valid(s.replace(/^===?/, '')) !== null && pep440.eq(s.replace(/^===?/, ''), version));
/** Versions (given newest first) that satisfy every specifier; pre-releases only when no final release does. */
export function satisfying(versions, specifiers) {
    const spec = specifiers.filter(Boolean).join(',');
    const matches = (prereleases) => versions.filter((v) => (spec ? pep440.satisfies(v, spec, { prereleases }) : prereleases || !isPre(v)));
    const finals = matches(false);
    return finals.length ? finals : matches(true);
}
function isPre(version) {
    const e = pep440.explain(version);
    return e !== null && (e.is_prerelease || e.is_devrelease);
}
