/**
 * The core-metadata fields pypi.org validates at upload (`packaging.metadata` and Warehouse's
 * `forklift/metadata.py` `_validate_metadata`), checked on the form larder received. The first failure, in
 * Warehouse's order (fields sorted by their core-metadata name), is a 400 naming the field and the rule
 * in one line. Not checked, unlike pypi.org: classifiers against the trove list, SPDX license expressions,
 * fields newer than the declared metadata version, direct references in `Requires-Dist` (docs/uploads.md).
 *
 * A parsed value is at most MAX_PARSED_VALUE long, and the checks stop for the event loop after every
 * CHECK_SLICE characters, so a form of thousands of long requirements never holds the main thread.
 */
import { LarderError } from '../base/errors.js';
import { parseDependencySpecifier } from '../model/dependency-specifier.js';
import { isValidProjectName } from '../model/names.js';
import { pyRepr } from '../model/py-repr.js';
import { isValidSpecifierSet } from '../model/specifiers.js';
import { contentTypeProblem, emailAddresses, emailAddressProblem, importNameProblem, isHttpUrl, licenseFileProblem } from './field-syntax.js';
import type { UploadForm } from './form-fields.js';

/** Longest value of a field that is parsed (everything but the description and free text); real ones are well under 1 KB. */
export const MAX_PARSED_VALUE = 64 * 1024;
const CHECK_SLICE = 64 * 1024;
const MAX_SUMMARY_LENGTH = 512;
const MAX_URL_LABEL_LENGTH = 32;
const CORE_METADATA_HELP = 'See https://packaging.python.org/specifications/core-metadata for more information.';

/** Fields Warehouse lets a sdist mark Dynamic (PEP 643, PEP 794). */
const DYNAMIC_FIELDS = new Set([
  'platform',
  'supported-platform',
  'summary',
  'description',
  'description-content-type',
  'keywords',
  'home-page',
  'download-url',
  'author',
  'author-email',
  'maintainer',
  'maintainer-email',
  'license',
  'license-expression',
  'license-file',
  'classifier',
  'requires-dist',
  'requires-python',
  'requires-external',
  'project-url',
  'provides-extra',
  'provides-dist',
  'obsoletes-dist',
  'requires',
  'provides',
  'obsoletes',
  'import-name',
  'import-namespace',
]);

const show = (value: string) => pyRepr(value, 60);

interface Rule {
  /** The core-metadata name the message uses; rules run sorted by it, as Warehouse reports them. */
  field: string;
  values: (form: UploadForm) => readonly string[];
  /** The reason the value breaks the rule, or null. */
  problem: (value: string, form: UploadForm) => string | null;
}

const single = (key: keyof UploadForm['single']) => (form: UploadForm) => (form.single[key] === undefined ? [] : [form.single[key]!]);
const multi = (key: keyof UploadForm['multi']) => (form: UploadForm) => form.multi[key] ?? [];

const emailRule = (field: string, key: 'author_email' | 'maintainer_email'): Rule => ({
  field,
  values: single(key),
  problem: (value) => {
    for (const address of emailAddresses(value)) {
      const why = emailAddressProblem(address);
      if (why) return `${show(address)} is not a valid email address for '${field}': ${why}`;
    }
    return null;
  },
});

const urlRule = (field: string, key: 'home_page' | 'download_url'): Rule => ({
  field,
  values: single(key),
  problem: (value) => (isHttpUrl(value) ? null : `${show(value)} is not a valid url for '${field}': use an http or https URL`),
});

const requirementRule = (field: string, key: 'requires_dist' | 'provides_dist' | 'obsoletes_dist', allowUrl: boolean): Rule => ({
  field,
  values: multi(key),
  problem: (value) => {
    const parsed = parseDependencySpecifier(value);
    if ('error' in parsed) return `${show(value)} is invalid for '${field}': ${parsed.error}`;
    return parsed.url !== null && !allowUrl ? `Can't have direct dependency: ${show(value)} in '${field}'` : null;
  },
});

function projectUrlProblem(value: string): string | null {
  const comma = value.indexOf(',');
  const label = (comma === -1 ? value : value.slice(0, comma)).trim();
  const url = comma === -1 ? '' : value.slice(comma + 1).trim();
  if (!label) return `'project-url' ${show(value)} must have a label`;
  if ([...label].length > MAX_URL_LABEL_LENGTH) return `'project-url' label ${show(label)} must be ${MAX_URL_LABEL_LENGTH} characters or less`;
  if (!url) return `'project-url' ${show(label)} must have a URL`;
  return isHttpUrl(url) ? null : `${show(url)} is not a valid url for 'project-url': use an http or https URL`;
}

const RULES: readonly Rule[] = [
  emailRule('author-email', 'author_email'),
  { field: 'description-content-type', values: single('description_content_type'), problem: contentTypeProblem },
  urlRule('download-url', 'download_url'),
  {
    field: 'dynamic',
    values: multi('dynamic'),
    problem: (value) => {
      const key = value.toLowerCase();
      if (key === 'name' || key === 'version' || key === 'metadata-version') return `${show(key)} is not allowed as a dynamic field`;
      return DYNAMIC_FIELDS.has(key) ? null : `Dynamic field ${show(key)} is not a valid dynamic field`;
    },
  },
  urlRule('home-page', 'home_page'),
  { field: 'import-name', values: multi('import_name'), problem: (value) => importNameProblem(value, 'import-name') },
  { field: 'import-namespace', values: multi('import_namespace'), problem: (value) => importNameProblem(value, 'import-namespace') },
  {
    field: 'license',
    values: single('license'),
    problem: (_value, form) =>
      form.single.license_expression === undefined
        ? null
        : 'License is deprecated when License-Expression is present. Only License-Expression should be present',
  },
  { field: 'license-file', values: multi('license_file'), problem: licenseFileProblem },
  emailRule('maintainer-email', 'maintainer_email'),
  requirementRule('obsoletes-dist', 'obsoletes_dist', false),
  { field: 'project-url', values: multi('project_urls'), problem: projectUrlProblem },
  requirementRule('provides-dist', 'provides_dist', false),
  {
    field: 'provides-extra',
    values: multi('provides_extra'),
    problem: (value) =>
      isValidProjectName(value)
        ? null
        : `${show(value)} is invalid for 'provides-extra': use letters, digits, '.', '_' and '-', starting and ending with a letter or digit`,
  },
  requirementRule('requires-dist', 'requires_dist', true),
  {
    field: 'requires-python',
    values: single('requires_python'),
    problem: (value) => (isValidSpecifierSet(value) ? null : `${show(value)} is invalid for 'requires-python': use PEP 440 version specifiers such as '>=3.9'`),
  },
  {
    field: 'summary',
    values: single('summary'),
    problem: (value) => {
      if (/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/.test(value)) return "'summary' must be a single line";
      return [...value].length > MAX_SUMMARY_LENGTH ? `'summary' field must be ${MAX_SUMMARY_LENGTH} characters or less` : null;
    },
  },
];

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Resolves when every checked field is valid; rejects with the first failure, a 400 `invalid_metadata`. */
export async function checkMetadataFields(form: UploadForm): Promise<void> {
  let sinceTurn = 0;
  for (const rule of RULES) {
    for (const value of rule.values(form)) {
      if (value.length > MAX_PARSED_VALUE) throw invalidMetadata(`A '${rule.field}' value is longer than ${MAX_PARSED_VALUE / 1024} KB`);
      sinceTurn += value.length;
      if (sinceTurn > CHECK_SLICE) {
        await nextTurn();
        sinceTurn = value.length;
      }
      const problem = rule.problem(value, form);
      if (problem) throw invalidMetadata(problem);
    }
  }
}

/** Warehouse's wording: the reason, a full stop, and where the rules are written. */
const invalidMetadata = (reason: string) => new LarderError('invalid_metadata', `${reason}${reason.endsWith('.') ? '' : '.'} ${CORE_METADATA_HELP}`);
