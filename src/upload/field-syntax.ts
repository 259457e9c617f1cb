/**
 * The syntax of single core-metadata values, as `packaging.metadata` and Warehouse's `forklift/metadata.py`
 * check them. Each check returns null for a good value, or the reason it is not one, worded to follow
 * `'<value>' is ...` or to stand alone; metadata-rules.ts turns it into the upload's answer.
 */
import { pyRepr } from '../model/py-repr.js';

const show = (value: string) => pyRepr(value, 60);

/**
 * A URL as Warehouse's `is_valid_uri(..., require_authority=False)` takes it: http or https, and none of
 * the characters RFC 3986 leaves out of URIs (whitespace, controls, `<>"{}|\^` and the backtick).
 */
export function isHttpUrl(text: string): boolean {
  if (/[\s<>"{}|\\^`\x00-\x1f\x7f]/.test(text)) return false;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The addresses of an `Author-email`-style field: `Name <a@b.c>, "Doe, J" <d@e.f>, g@h.i (comment)`. */
export function emailAddresses(field: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  let quoted = false;
  let angle = false;
  for (let i = 0; i < field.length; i++) {
    const ch = field[i];
    if (quoted && ch === '\\') i++;
    else if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '<' || ch === '>')) angle = ch === '<';
    else if (!quoted && !angle && ch === ',') {
      pieces.push(field.slice(start, i));
      start = i + 1;
    }
  }
  pieces.push(field.slice(start));
  return pieces
    .map((piece) => {
      const bare = piece.replace(/"(?:[^"\\]|\\.)*"/g, '').replace(/\([^()]*\)/g, '');
      return (/<([^<>]*)>/.exec(bare)?.[1] ?? bare).trim();
    })
    .filter((address) => address !== '');
}

const ATOM = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~\\u0080-\\uFFFF]+";
const LOCAL_PART = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`, 'u');
const DOMAIN_LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/** Why `address` is not one email-validator (Warehouse's check) accepts, or null; quoted local parts and IP literals are refused as there. */
export function emailAddressProblem(address: string): string | null {
  const parts = address.split('@');
  if (parts.length !== 2) return 'it must have exactly one @-sign';
  const [local, domain] = parts as [string, string];
  if (local === '') return 'there must be something before the @-sign';
  if (Buffer.byteLength(local) > 64) return 'the part before the @-sign is longer than 64 bytes';
  if (!LOCAL_PART.test(local)) return 'the part before the @-sign has a character or a dot where none is allowed';
  if (Buffer.byteLength(address) > 254) return 'it is longer than 254 bytes';
  const labels = domain.split('.');
  if (labels.length < 2) return 'the part after the @-sign is not a domain name with a period';
  if (!labels.every((label) => DOMAIN_LABEL.test(label))) return 'the part after the @-sign is not a valid domain name';
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return 'the part after the @-sign ends in a number, not a top-level domain';
  return null;
}

const CONTENT_TYPES = ['text/plain', 'text/x-rst', 'text/markdown'];
const MARKDOWN_VARIANTS = ['GFM', 'CommonMark'];

/** packaging's `_process_description_content_type`: a known type, UTF-8 if a charset is named, a known Markdown variant. */
export function contentTypeProblem(value: string): string | null {
  const [type = '', ...params] = value.split(';');
  const field = "'description-content-type'";
  if (!CONTENT_TYPES.includes(type.trim().toLowerCase())) {
    return `${field} must be one of ${CONTENT_TYPES.map((t) => `'${t}'`).join(', ')}, not ${show(value)}`;
  }
  const parameters = new Map<string, string>();
  for (const param of params) {
    if (param.trim() === '') continue;
    const m = /^\s*([!#$%&'*+\-.^_`|~0-9A-Za-z]+)\s*=\s*(?:"([^"]*)"|([^\s"]*))\s*$/.exec(param);
    if (!m) return `${show(value)} is not a valid content type for ${field}`;
    parameters.set(m[1]!.toLowerCase(), m[2] ?? m[3]!);
  }
  const charset = parameters.get('charset') ?? 'UTF-8';
  if (charset.toLowerCase() !== 'utf-8') return `${field} can only specify the UTF-8 charset, not ${show(charset)}`;
  const variant = parameters.get('variant') ?? 'GFM';
  if (type.trim().toLowerCase() === 'text/markdown' && !MARKDOWN_VARIANTS.includes(variant)) {
    return `valid Markdown variants for ${field} are 'GFM', 'CommonMark', not ${show(variant)}`;
  }
  return null;
}

/** packaging's `_process_license_files`: relative, resolved paths written with `/`. */
export function licenseFileProblem(path: string): string | null {
  const what = `${show(path)} is invalid for 'license-file'`;
  if (path.includes('..')) return `${what}, parent directory indicators are not allowed`;
  if (path.includes('*')) return `${what}, paths must be resolved`;
  if (path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || /^[\\/]{2}[^\\/]+[\\/][^\\/]+/.test(path)) return `${what}, paths must be relative`;
  if (path.includes('\\') || path.split('/').some((segment) => segment === '' || segment === '.')) return `${what}, paths must use '/' delimiter`;
  return null;
}

const PYTHON_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);
const IDENTIFIER = /^[\p{XID_Start}_]\p{XID_Continue}*$/u;

/** packaging's `_process_import_names`: dotted identifiers, none a keyword, optionally `; private`. */
export function importNameProblem(value: string, field: string): string | null {
  const semicolon = value.indexOf(';');
  const name = (semicolon === -1 ? value : value.slice(0, semicolon)).trimEnd();
  for (const identifier of name.split('.')) {
    if (!IDENTIFIER.test(identifier)) return `${show(name)} is invalid for '${field}'; ${show(identifier)} is not a valid identifier`;
    if (PYTHON_KEYWORDS.has(identifier)) return `${show(name)} is invalid for '${field}'; ${show(identifier)} is a keyword`;
  }
  if (semicolon !== -1 && value.slice(semicolon + 1).trimStart() !== 'private') {
    return `${show(value)} is invalid for '${field}'; the only valid option is 'private'`;
  }
  return null;
}
