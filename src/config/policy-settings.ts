/**
 * The supply-chain policy's settings (release cooldown, deny and allow lists) and their parsers.
 * docs/policy.md describes what they do.
 */
import { parseRequirementList } from '../model/requirements.js';
import { setting } from './setting.js';
import { ConfigError, parseBoolean, parseDuration, type Parser } from './values.js';

const parseMinReleaseAge: Parser<number | null> = (raw, key) => {
  if (raw === null || raw === undefined || raw === '' || raw === false || String(raw).toLowerCase() === 'off') return null;
  return parseDuration(raw, key) || null;
};

const parseUnknownAge: Parser<'allow' | 'deny'> = (raw, key) => {
  const value = String(raw ?? 'allow').toLowerCase();
  if (value !== 'allow' && value !== 'deny') throw new ConfigError(key, raw, 'allow or deny');
  return value;
};

const parseRequirements: Parser<string[]> = (raw, key) => {
  if (raw === null || raw === undefined || raw === '') return [];
  if (typeof raw !== 'string' && !(Array.isArray(raw) && raw.every((item) => typeof item === 'string'))) {
    throw new ConfigError(key, raw, 'a comma-separated list (or an array) of requirements such as evilpkg,requests<2.0');
  }
  try {
    return parseRequirementList(raw as string | string[]).map((r) => r.text);
  } catch (err) {
    throw new ConfigError(key, raw, `a comma-separated list of requirements such as evilpkg,requests<2.0 (${(err as Error).message})`);
  }
};

const SEVERITY_BANDS = ['low', 'moderate', 'high', 'critical'] as const;

const parseBlockVulnerable: Parser<(typeof SEVERITY_BANDS)[number] | null> = (raw, key) => {
  const value = String(raw ?? 'off')
    .trim()
    .toLowerCase();
  if (value === 'off' || value === '') return null;
  const band = SEVERITY_BANDS.find((b) => b === value);
  if (!band) throw new ConfigError(key, raw, 'off, low, moderate, high or critical');
  return band;
};

export const POLICY_SETTINGS = {
  minReleaseAge: setting({
    env: 'LARDER_MIN_RELEASE_AGE',
    parse: parseMinReleaseAge,
    default: '',
    value: 'DURATION',
    doc: 'hide upstream files younger than this (e.g. `3d`); empty = off ([docs/policy.md](docs/policy.md))',
  }),
  minReleaseAgeUnknown: setting({
    env: 'LARDER_MIN_RELEASE_AGE_UNKNOWN',
    parse: parseUnknownAge,
    default: 'allow',
    value: 'allow|deny',
    doc: 'upstream files with no known upload time while the cooldown is on: `allow` or `deny`',
  }),
  deny: setting({
    env: 'LARDER_DENY',
    parse: parseRequirements,
    default: '',
    value: 'REQUIREMENTS',
    doc: 'PEP 508 requirements (comma-separated, or an array in the config file) whose upstream releases are hidden and refused, e.g. `evilpkg,requests<2.0`',
  }),
  allow: setting({
    env: 'LARDER_ALLOW',
    parse: parseRequirements,
    default: '',
    value: 'REQUIREMENTS',
    doc: 'when set, only upstream projects matching these requirements are served (deny wins)',
  }),
  blockMalware: setting({
    env: 'LARDER_BLOCK_MALWARE',
    parse: parseBoolean,
    default: true,
    doc: 'block upstream releases named by an imported `MAL-` advisory ([docs/advisories.md](docs/advisories.md))',
  }),
  blockVulnerable: setting({
    env: 'LARDER_BLOCK_VULNERABLE',
    parse: parseBlockVulnerable,
    default: 'off',
    value: 'off|low|moderate|high|critical',
    doc: 'block upstream releases affected by an imported advisory of at least this severity',
  }),
};

/** The policy's settings as loaded: the cooldown in ms (null = off), the requirement lists as texts. */
export type PolicyConfig = { [K in keyof typeof POLICY_SETTINGS]: ReturnType<(typeof POLICY_SETTINGS)[K]['parse']> };

/** What the advisories decide by (policy/advisories.ts). */
export type AdvisoryRules = Pick<PolicyConfig, 'blockMalware' | 'blockVulnerable'>;
