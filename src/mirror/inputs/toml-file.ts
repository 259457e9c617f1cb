/** Reading a TOML lock file with smol-toml, and the small checks and the record every lock reader needs. */
import { readFileSync } from 'node:fs';
import { parse, type TomlTable } from 'smol-toml';
import { normalizeName } from '../../model/names.js';
import { InputError, parseMarker, type LockedFile, type LockedPackage } from '../requirement.js';

export type Table = Record<string, unknown>;

export function readToml(path: string): Table {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return parse(content) as TomlTable as Table;
  } catch (err) {
    throw new InputError(`${path} is not valid TOML: ${(err as Error).message.split('\n', 1)[0]}`);
  }
}

export const tables = (value: unknown): Table[] => (Array.isArray(value) ? value.filter((v): v is Table => typeof v === 'object' && v !== null) : []);

export const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** `sha256:HEX` → HEX; other algorithms → null. */
export function sha256Of(hash: unknown): string | null {
  const m = typeof hash === 'string' ? /^sha256[:=]([0-9a-fA-F]{64})$/.exec(hash) : null;
  return m ? m[1]!.toLowerCase() : null;
}

export function requireField(table: Table, field: string, origin: string): string {
  const value = str(table[field]);
  if (!value) throw new InputError(`${origin}: a package has no '${field}'`);
  return value;
}

/** A locked package as the closure reads it: the name normalized, the marker parsed, no files listed → null (any file of the version). */
export function lockedPackage(name: string, version: string, files: LockedFile[], origin: string, marker: string | null = null): LockedPackage {
  return { name: normalizeName(name), version, marker: marker ? parseMarker(marker, origin) : undefined, files: files.length ? files : null, origin };
}
