/** The settings as command-line options: every command takes them (`--data DIR`, `--offline`, …). */
import { SETTINGS, type ConfigKey } from '../config/schema.js';
import { parseBoolean } from '../config/values.js';
import type { OptionSpec, OptionSpecs } from './options.js';

/** Placeholders of the settings' values in help and messages; other settings show `VALUE`. */
const SETTING_VALUES: Partial<Record<ConfigKey, string>> = {
  host: 'ADDRESS',
  port: 'PORT',
  data: 'DIR',
  upstream: 'URL',
  publicUrl: 'URL',
  maxUploadSize: 'SIZE',
  logLevel: 'LEVEL',
  indexMaxAge: 'SECONDS',
  upstreamJsonApi: 'URL',
  upstreamUsername: 'NAME',
  upstreamPassword: 'PASSWORD',
  upstreamConnectTimeout: 'DURATION',
  upstreamHeadersTimeout: 'DURATION',
  upstreamBodyTimeout: 'DURATION',
  upstreamRetries: 'N',
  upstreamDeadline: 'DURATION',
  staleWait: 'DURATION',
  maxFileSize: 'SIZE',
  fileHosts: 'ORIGINS',
  diskReserve: 'SIZE',
  loginFailureLimit: 'N',
  pageTtl: 'DURATION',
  rootTtl: 'DURATION',
  notFoundTtl: 'DURATION',
  mergeAllowList: 'NAMES',
  memoryCacheSize: 'SIZE',
  httpProxy: 'URL',
  httpsProxy: 'URL',
  noProxy: 'HOSTS',
  metricsToken: 'TOKEN',
  shutdownGrace: 'DURATION',
  cacheMaxSize: 'SIZE',
  minReleaseAge: 'DURATION',
  minReleaseAgeUnknown: 'allow|deny',
  deny: 'REQUIREMENTS',
  allow: 'REQUIREMENTS',
  upstreams: 'JSON',
  databaseUrl: 'URL',
  blobStore: 'URL',
  s3Endpoint: 'URL',
  s3Region: 'REGION',
  sharedDownloadWait: 'DURATION',
  sessionSecret: 'SECRET',
};

/** A setting's flag as an option; the booleans are the settings parsed as true or false. */
export function settingOption(s: (typeof SETTINGS)[number]): OptionSpec {
  if (s.parse === parseBoolean) return { type: 'boolean', help: s.help };
  return { type: 'string', value: SETTING_VALUES[s.key] ?? 'VALUE', help: s.help };
}

/** By option name (the flag without `--`). */
export const SETTING_OPTIONS: OptionSpecs = Object.fromEntries(SETTINGS.map((s) => [s.flag.slice(2), settingOption(s)]));
