import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { invalidField } from '../../lib/errors.js';

/** Addresses a webhook may never reach: loopback, private, link-local (cloud metadata), and the like. */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96], ['100::', 64],
] as const) NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  return !NOT_PUBLIC.check(address, 'ipv6');
}

function parseSubscriberUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidField('subscriberUrl', 'must be a valid URL', text);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidField('subscriberUrl', 'must be an http(s) URL', text);
  if (url.username || url.password) throw invalidField('subscriberUrl', 'must not carry credentials', text);
  return url;
}

/**
 * A subscriber URL svc may deliver to: http(s), and (unless private targets are allowed) resolving only
 * to public addresses. Checked when a subscription is written; `publicOnlyLookup` checks again when
 * each delivery connects, so a name re-pointed later (DNS rebinding) cannot reach inside either.
 */
export async function assertDeliverableUrl(text: string, allowPrivate: boolean): Promise<URL> {
  const url = parseSubscriberUrl(text);
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await dns.promises.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    throw invalidField('subscriberUrl', `has a host name that does not resolve (${host})`, text);
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw invalidField('subscriberUrl', 'must not point to a loopback, private, link-local or other internal address', text);
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
