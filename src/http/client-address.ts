/**
 * The client's address as the download audit records it: the connection's peer, or, when the peer is one
 * of LARDER_TRUSTED_PROXIES, the first address of its `X-Forwarded-For` (an address that does not parse
 * leaves the peer). IPv4 peers seen as IPv4-mapped IPv6 (`::ffff:10.0.0.5`) are written as IPv4.
 */
import { BlockList, isIP } from 'node:net';

export type ClientAddress = (peer: string | undefined, forwardedFor: string | string[] | undefined) => string;

const plain = (address: string) => (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address);

export function clientAddressOf(trustedProxies: readonly string[]): ClientAddress {
  if (trustedProxies.length === 0) return (peer) => plain(peer ?? '');
  const trusted = new BlockList();
  for (const entry of trustedProxies) {
    const [address, bits] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) trusted.addAddress(address, family);
    else trusted.addSubnet(address, Number(bits), family);
  }
  return (peer, forwardedFor) => {
    const from = plain(peer ?? '');
    const family = isIP(from);
    if (family === 0 || forwardedFor === undefined || !trusted.check(from, family === 6 ? 'ipv6' : 'ipv4')) return from;
    const header = Array.isArray(forwardedFor) ? forwardedFor[0]! : forwardedFor;
    const comma = header.indexOf(',');
    const first = (comma === -1 ? header : header.slice(0, comma)).trim();
    return isIP(first) === 0 ? from : plain(first);
  };
}
