/**
 * The download audit's settings (docs/audit.md): whether every file download served is recorded, how long
 * the records are kept, and which peers may name the client in `X-Forwarded-For`.
 */
import { isIP } from 'node:net';
import { setting } from './setting.js';
import { ConfigError, listItems, parseBoolean, parseDuration, type Parser } from './values.js';

const parseRetention: Parser<number> = (raw, key) => {
  const ms = parseDuration(raw, key);
  if (ms < 60_000) throw new ConfigError(key, raw, 'a duration of at least 1m, such as 90d');
  return ms;
};

/** An address (`10.0.0.5`, `::1`) or a CIDR block (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrBlock(item: string): boolean {
  const [address, bits, ...rest] = item.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

const parseProxyList: Parser<string[]> = (raw, key) => {
  const items = listItems(raw);
  for (const item of items) {
    if (!isAddressOrBlock(item)) throw new ConfigError(key, raw, 'a comma-separated list of addresses or CIDR blocks such as 10.0.0.5,192.168.0.0/16');
  }
  return items;
};

export const AUDIT_SETTINGS = {
  audit: setting({
    env: 'LARDER_AUDIT',
    parse: parseBoolean,
    default: true,
    doc: 'record every file download served: who, from where, which file ([docs/audit.md](docs/audit.md))',
  }),
  auditRetention: setting({
    env: 'LARDER_AUDIT_RETENTION',
    parse: parseRetention,
    default: '90d',
    value: 'DURATION',
    doc: 'how long download records are kept',
  }),
  trustedProxies: setting({
    env: 'LARDER_TRUSTED_PROXIES',
    parse: parseProxyList,
    default: '',
    value: 'ADDRESSES',
    doc: 'reverse proxies (addresses or CIDR blocks, comma-separated) whose `X-Forwarded-For` names the client in the download audit',
  }),
};
