/** Argument parsing shared by the commands: node:util parseArgs plus the config flags every command takes. */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.js';
import { SETTINGS } from '../config/schema.js';
export class UsageError extends Error {
}
const CONFIG_OPTIONS = Object.fromEntries(SETTINGS.map((s) => [s.flag.slice(2), { type: s.key === 'offline' || s.key === 'readAuth' ? 'boolean' : 'string' }]));
export function parseCommand(argv, options, env) {
    let parsed;
    try {
        parsed = parseArgs({ args: argv, options: { ...CONFIG_OPTIONS, ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
    }
    catch (err) {
        throw new UsageError(err.message);
    }
    const values = parsed.values;
    const { positionals } = parsed;
    const flags = {};
    for (const s of SETTINGS) {
        const v = values[s.flag.slice(2)];
        if (v !== undefined)
            flags[s.key] = v;
    }
    return { values, positionals, config: () => loadConfig({ env, flags }) };
}
export const CONFIG_FLAGS_HELP = SETTINGS.map((s) => `  ${s.flag.padEnd(20)} ${s.help} (env ${s.env})`).join('\n');
