import ipaddr from 'ipaddr.js';
import { keyedHash } from '../tokens.ts';

/**
 * The address a limit counts: IPv4 as it is, IPv6 by its /64 (one subscriber usually holds a whole
 * /64), IPv4-mapped IPv6 as IPv4. `ip` is Fastify's request.ip, which honours TRUST_PROXY.
 */
export function sourceAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  let address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      address = v6.toIPv4Address();
    } else {
      const parts = v6.parts.slice(0, 4).map((part) => part.toString(16));
      return `${parts.join(':')}::/64`;
    }
  }
  return address.toString();
}

/** Only this keyed hash of a client address is ever stored (CONTRACT §5). */
export function sourceKey(ip: string, rateSalt: string): string {
  return keyedHash(rateSalt, sourceAddress(ip));
}
