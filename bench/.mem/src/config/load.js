/** Loads the configuration: config/defaults.json, then an optional JSON or TOML file, then the environment, then flags. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseToml } from 'smol-toml';
import { ConfigError, SETTINGS } from './schema.js';
const DEFAULTS_PATH = fileURLToPath(new URL('../../../config/defaults.json', import.meta.url));
const DEFAULTS_PATH_SOURCE = fileURLToPath(new URL('../../config/defaults.json', import.meta.url));
function readJson(path, what) {
    let text;
    try {
        text = readFileSync(path, 'utf8');
    }
    catch (err) {
        throw new ConfigError(what, path, `a readable JSON file (${err.code ?? 'unreadable'})`);
    }
    const toml = path.toLowerCase().endsWith('.toml');
    try {
        const value = toml ? parseToml(text) : JSON.parse(text);
        if (value && typeof value === 'object' && !Array.isArray(value))
            return value;
    }
    catch (err) {
        if (toml)
            throw new ConfigError(what, path, `a valid TOML file (${err.message.split('\n')[0]})`);
    }
    throw new ConfigError(what, path, 'a file holding one JSON object');
}
export function readDefaults() {
    try {
        return readJson(DEFAULTS_PATH_SOURCE, 'defaults');
    }
    catch {
        return readJson(DEFAULTS_PATH, 'defaults');
    }
}
export function loadConfig({ env = {}, flags = {}, overrides = {} } = {}) {
    const raw = { ...readDefaults() };
    const file = env.LARDER_CONFIG;
    if (file)
        Object.assign(raw, readJson(file, 'LARDER_CONFIG'));
    const known = new Set(SETTINGS.map((s) => s.key));
    for (const key of Object.keys(raw)) {
        if (!known.has(key))
            throw new ConfigError(key, raw[key], `one of the known keys (${[...known].join(', ')})`);
    }
    const config = {};
    for (const s of SETTINGS) {
        let value = raw[s.key];
        let name = s.key;
        const envName = (typeof s.env === 'string' ? [s.env] : s.env).find((n) => env[n] !== undefined);
        if (envName) {
            value = env[envName];
            name = envName;
        }
        if (flags[s.key] !== undefined) {
            value = flags[s.key];
            name = s.flag;
        }
        config[s.key] = s.parse(value, name);
    }
    const result = { ...config, ...overrides };
    if (result.upstreamJsonApi === '')
        result.upstreamJsonApi = deriveJsonApi(result.upstream);
    return result;
}
/** `https://pypi.org/simple/` → `https://pypi.org/pypi/`; any other path: its `simple/` segment replaced, else `pypi/` appended. */
export function deriveJsonApi(upstream) {
    if (!upstream)
        return null;
    const url = new URL(upstream);
    url.username = '';
    url.password = '';
    url.pathname = /\/simple\/$/.test(url.pathname) ? url.pathname.replace(/simple\/$/, 'pypi/') : `${url.pathname.replace(/\/?$/, '/')}pypi/`;
    return url.toString();
}
/** The configuration as it may be logged: credentials in URLs masked. */
export function describeConfig(config) {
    const masked = { ...config };
    for (const [key, value] of Object.entries(masked)) {
        if (typeof value === 'string' && /^https?:\/\/[^/]*@/.test(value)) {
            masked[key] = value.replace(/\/\/[^/@]*@/, '//***@');
        }
        if (/password|token/i.test(key) && value)
            masked[key] = '***';
    }
    return masked;
}
