/**
 * Loads a dependency when it is first used, so what only some requests need (HTML parsing of an upstream,
 * multipart and archive handling of uploads) does not weigh on every start.
 */
import { createRequire } from 'node:module';

export const lazyRequire = createRequire(import.meta.url);
