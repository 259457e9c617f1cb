/** Trusted publishing's settings (README "Trusted publishing"): the issuers accepted, the audience, the minted tokens' lifetime. */
import { setting } from './setting.js';
import { ConfigError, listItems, parseDuration, parseString, type Parser } from './values.js';

const LOOPBACK = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/;

/** Whether larder may ask `url` for an issuer's keys: https, or http on a loopback address. */
export function isSecureIssuerUrl(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname));
}

/** `https://token.actions.githubusercontent.com, https://gitlab.com`: issuer URLs as tokens name them in `iss`. */
const parseIssuerList: Parser<string[]> = (raw, key) => {
  const items = listItems(raw);
  const expected = 'a comma-separated list of issuer URLs such as https://token.actions.githubusercontent.com (http:// only on loopback)';
  return items.map((item) => {
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      throw new ConfigError(key, raw, expected);
    }
    if (!isSecureIssuerUrl(url) || url.username || url.password || url.search || url.hash) throw new ConfigError(key, raw, expected);
    return item;
  });
};

const parseTokenTtl: Parser<number> = (raw, key) => {
  const ms = parseDuration(raw, key);
  if (ms < 1000 || ms > 86_400_000) throw new ConfigError(key, raw, 'a duration from 1s to 24h');
  return ms;
};

export const OIDC_SETTINGS = {
  oidcIssuers: setting({
    env: 'LARDER_OIDC_ISSUERS',
    parse: parseIssuerList,
    default: '',
    value: 'URLS',
    doc: 'OIDC issuers whose tokens trusted publishing accepts (comma-separated); empty = trusted publishing off',
  }),
  oidcAudience: setting({ env: 'LARDER_OIDC_AUDIENCE', parse: parseString, default: 'larder', value: 'TEXT', doc: 'the `aud` OIDC tokens must carry' }),
  oidcTokenTtl: setting({
    env: 'LARDER_OIDC_TOKEN_TTL',
    parse: parseTokenTtl,
    default: '15m',
    value: 'DURATION',
    doc: 'how long an upload token minted by trusted publishing works',
  }),
};
