import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { keyedHash } from '../tokens.ts';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv4-mapped IPv6 (`::ffff:192.0.2.1`, how a dual-stack socket reports IPv4 peers) as its IPv4 address. */
function unmapped(address: Address): Address {
  return address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

/**
 * The address in a socket address or an X-Forwarded-For entry, which some proxies write with a port
 * (`198.51.100.9:1111`, `[2001:db8::1]:2`); undefined when it is not an address at all.
 */
function parseClientAddress(entry: string | undefined): Address | undefined {
  if (entry === undefined) return undefined;
  const withPort = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(entry) ?? /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(entry);
  const bare = withPort?.[1] ?? entry;
  const family = isIP(bare);
  // Brackets hold IPv6 only; ipaddr.js refuses some zone ids Node accepts (`fe80::1%eth-0`).
  if (family === 0 || (withPort?.[0].startsWith('[') && family !== 6) || !ipaddr.isValid(bare)) return undefined;
  return unmapped(ipaddr.parse(bare));
}

type ProxyTrust = false | ((address: string, hop: number) => boolean);

/**
 * Fastify's `trustProxy` for TRUST_PROXY. Fastify walks from the socket peer (hop 0) through
 * X-Forwarded-For from the right, and the client is the first address this does not trust; entries
 * to its left were written by the client and are never believed.
 * - `true` trusts the socket peer only: the client is the entry that proxy appended, the last one
 *   (Fastify's own `true` trusts every hop and takes the left-most entry, which the client writes).
 * - A list trusts the addresses and CIDRs in it, entries written with a port included.
 */
export function proxyTrust(setting: boolean | string[]): ProxyTrust {
  if (setting === false) return false;
  if (setting === true) return (_address, hop) => hop === 0;
  const ranges = setting.map((entry): [Address, number] => {
    const [text, bits] = entry.split('/');
    const address = ipaddr.parse(text!);
    const maxBits = address.kind() === 'ipv6' ? 128 : 32;
    const prefix = bits === undefined ? maxBits : Number(bits);
    if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() && prefix >= 96) return [address.toIPv4Address(), prefix - 96];
    return [address, prefix];
  });
  return (entry) => {
    const address = parseClientAddress(entry);
    return address !== undefined && ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
  };
}

/**
 * The client address a per-source limit counts: Fastify's request.ip (the socket's, or the one
 * TRUST_PROXY's walk settled on) without a port. An entry that is no address falls back to the socket
 * address, so a client can neither make a request fail nor pick its own key with one.
 */
export function clientAddress(request: FastifyRequest): string {
  const address = parseClientAddress(request.ip) ?? parseClientAddress(request.socket.remoteAddress);
  return address?.toString() ?? request.socket.remoteAddress ?? '';
}

/**
 * The address a limit counts: IPv4 as it is, IPv6 by its /64 (one subscriber usually holds a whole
 * /64), IPv4-mapped IPv6 as IPv4.
 */
export function sourceAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = unmapped(ipaddr.parse(ip));
  if (address instanceof ipaddr.IPv6) return `${address.parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
  return address.toString();
}

/** The wider network a block may cover: an IPv4 address's /24; IPv6 is counted by its /64 already. */
export function wideSourceAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = unmapped(ipaddr.parse(ip));
  if (address instanceof ipaddr.IPv4) return `${address.octets.slice(0, 3).join('.')}.0/24`;
  return sourceAddress(ip);
}

/** Only this keyed hash of a client address is ever stored (CONTRACT §5). */
export function sourceKey(ip: string, rateSalt: string): string {
  return keyedHash(rateSalt, sourceAddress(ip));
}

/** A client address as the limits count it (`source`) and as a widened block covers it (`wide`), both keyed hashes. */
export type Sources = { source: string; wide: string };

/** The last source worked out on each connection: a client sends many requests on one, from one address. */
const lastSource = new WeakMap<object, { ip: string; key: string; wide?: string }>();

/**
 * The keyed hash of the client address that per-source limits count. Parsing the address and
 * hashing it cost more than the rest of a small request's routing, so the answer is kept on the
 * connection and used again while the request's address (after TRUST_PROXY) stays the same.
 */
export function requestSource(request: FastifyRequest): string {
  const ip = request.ip;
  const last = lastSource.get(request.socket);
  if (last !== undefined && last.ip === ip) return last.key;
  const key = sourceKey(clientAddress(request), request.server.services.config.rateSalt ?? '');
  lastSource.set(request.socket, { ip, key });
  return key;
}

/** requestSource with the keyed hash of its wider network, worked out once per connection as well. */
export function requestSources(request: FastifyRequest): Sources {
  const source = requestSource(request);
  const last = lastSource.get(request.socket)!;
  last.wide ??= keyedHash(request.server.services.config.rateSalt ?? '', wideSourceAddress(clientAddress(request)));
  return { source, wide: last.wide };
}
