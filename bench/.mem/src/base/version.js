/** larder's own version, read from package.json (beside `src/` when run from source, beside `dist/` when built). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
function readVersion() {
    for (const relative of ['../../package.json', '../../../package.json']) {
        try {
            const pkg = JSON.parse(readFileSync(fileURLToPath(new URL(relative, import.meta.url)), 'utf8'));
            if (pkg.name === 'larder' && pkg.version)
                return pkg.version;
        }
        catch {
            /* try the next place */
        }
    }
    return 'unknown';
}
export const LARDER_VERSION = readVersion();
