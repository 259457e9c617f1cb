/**
 * PEP 508 environment markers, evaluated against a target's environment as `packaging.markers` does:
 * version comparisons where both sides are PEP 440 versions, string comparison otherwise, `in` / `not in`
 * as substring tests, and `extra` compared by normalized name. The tree comes from the requirement parser.
 */
import * as pep440 from '@renovatebot/pep440';
import { normalizeName } from '../model/names.js';
export class MarkerError extends Error {
}
const VARIABLES = new Set([
    'python_version',
    'python_full_version',
    'os_name',
    'sys_platform',
    'platform_release',
    'platform_system',
    'platform_version',
    'platform_machine',
    'platform_python_implementation',
    'implementation_name',
    'implementation_version',
    'extra',
    // Old spellings packaging still accepts.
    'os.name',
    'sys.platform',
    'platform.version',
    'platform.machine',
    'platform.python_implementation',
    'python_implementation',
]);
const ALIASES = {
    'os.name': 'os_name',
    'sys.platform': 'sys_platform',
    'platform.version': 'platform_version',
    'platform.machine': 'platform_machine',
    'platform.python_implementation': 'platform_python_implementation',
    python_implementation: 'platform_python_implementation',
};
function side(raw) {
    if (/^(['"]).*\1$/s.test(raw))
        return { literal: raw.slice(1, -1) };
    if (VARIABLES.has(raw))
        return { variable: ALIASES[raw] ?? raw };
    throw new MarkerError(`unknown marker variable '${raw}'`);
}
function compare(op, lhs, rhs, isExtra) {
    if (isExtra) {
        lhs = normalizeName(lhs);
        rhs = normalizeName(rhs);
    }
    if (op === 'in')
        return rhs.includes(lhs);
    if (op === 'not in')
        return !rhs.includes(lhs);
    if (op === '===')
        return lhs === rhs;
    if (!isExtra && pep440.valid(lhs) !== null && pep440.validRange(`${op}${rhs}`))
        return pep440.satisfies(lhs, `${op}${rhs}`, { prereleases: true });
    if (op === '==')
        return lhs === rhs;
    if (op === '!=')
        return lhs !== rhs;
    throw new MarkerError(`cannot compare '${lhs}' ${op} '${rhs}' (not versions)`);
}
function leaf(node, env) {
    const l = side(node.left);
    const r = side(node.right);
    const value = (s) => {
        if ('literal' in s)
            return s.literal;
        const v = env[s.variable];
        if (v === undefined)
            throw new MarkerError(`marker variable '${s.variable}' is not defined here`);
        return v;
    };
    const isExtra = ('variable' in l && l.variable === 'extra') || ('variable' in r && r.variable === 'extra');
    return compare(node.operator, value(l), value(r), isExtra);
}
/** True when `marker` holds in `env` (which holds `extra` when the marker may name one). */
export function evaluateMarker(marker, env) {
    if ('operator' in marker && (marker.operator === 'and' || marker.operator === 'or') && typeof marker.left === 'object') {
        const node = marker;
        return node.operator === 'and'
            ? evaluateMarker(node.left, env) && evaluateMarker(node.right, env)
            : evaluateMarker(node.left, env) || evaluateMarker(node.right, env);
    }
    return leaf(marker, env);
}
/** A requirement's marker with the extras it was asked with: true when it holds for none (`extra == ""`) or any of them. */
export function markerHolds(marker, env, extras = []) {
    if (!marker)
        return true;
    for (const extra of ['', ...extras])
        if (evaluateMarker(marker, { ...env, extra }))
            return true;
    return false;
}
