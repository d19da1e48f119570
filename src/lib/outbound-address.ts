import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { invalidField } from './errors.js';

/** IPv6 global unicast (RFC 4291); everything outside it is loopback, link-local, IPv4-embedding or otherwise special. */
const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];

/**
 * Whether svc may reach this address on a user's behalf (webhook deliveries, calendar feeds and servers), decided by what it means, not how it is written: an
 * allow-list of global unicast. IPv4: only what ipaddr.js calls unicast (not loopback, private,
 * carrier-grade NAT, link-local, reserved, documentation, benchmarking, multicast...). IPv6: only
 * inside 2000::/3 and in none of ipaddr.js's special ranges there (6to4, Teredo, NAT64,
 * documentation, ORCHID, benchmarking...), which also shuts out every form that carries an IPv4
 * address (IPv4-compatible `::a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, 6to4 `2002:a.b.c.d::`)
 * except IPv4-mapped `::ffff:a.b.c.d`, which is judged as the IPv4 address it is.
 */
export function isPublicAddress(address: string): boolean {
  if (!isIP(address)) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  return parsed.range() === 'unicast' && (parsed as ipaddr.IPv6).match(GLOBAL_UNICAST);
}

function parseOutboundUrl(text: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidField(field, 'must be a valid URL', text);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidField(field, 'must be an http(s) URL', text);
  if (url.username || url.password) throw invalidField(field, 'must not carry credentials', text);
  return url;
}

/**
 * A URL svc may call on a user's behalf (`field` names it in errors): http(s), and (unless private
 * targets are allowed) resolving only to public addresses. Checked when the URL is saved;
 * `publicOnlyLookup` checks again when each request connects, so a name re-pointed later (DNS
 * rebinding) cannot reach inside either.
 */
export async function assertOutboundUrl(text: string, allowPrivate: boolean, field: string): Promise<URL> {
  const url = parseOutboundUrl(text, field);
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await dns.promises.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    throw invalidField(field, `has a host name that does not resolve (${host})`, text);
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw invalidField(
      field,
      'must not point to a loopback, private, link-local or other internal address (to reach inside your own network, e.g. in development, start svc with SVC_ALLOW_PRIVATE_WEBHOOKS=1: it is read at start, so restart svc after setting it)',
      text,
    );
  }
  return url;
}

/** A `lookup` for http(s).request that refuses non-public addresses at connection time. */
export function publicOnlyLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as dns.LookupAddress[];
      const usable = allowPrivate ? list : list.filter((entry) => isPublicAddress(entry.address));
      if (usable.length === 0) {
        return callback(Object.assign(new Error(`refused: ${hostname} resolves to a non-public address`), { code: 'ESVCPRIVATE' }), '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, usable);
      callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}
