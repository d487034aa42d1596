// Where a school's event receiver may be (docs/delivery.md#delivery-events,
// docs/security.md#review-2026-11-28). The receiver's URL is written by an
// operator's console account, the admin API or a roster import, and the
// event worker POSTs to it from inside the deployment: unless
// EVENTS_ALLOW_PRIVATE, it connects only to public addresses, never to
// loopback, a private network, a link-local address (a cloud's metadata
// service at 169.254.169.254) or another range no public receiver is in.
// The address checked is the one connected to, after DNS, so a name that
// resolves to a public address when the URL is saved and to a private one
// at delivery (DNS rebinding) is refused too.
import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // this network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['64:ff9b::', 96], // NAT64: an IPv4 address inside, unchecked here
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments, Teredo among them
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: an IPv4 address inside
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

/** Whether `address` (an IP address, IPv4-mapped IPv6 read as its IPv4) may be a receiver's; anything else is not. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The refusal of a receiver at `address`, in the words of the event's last error. */
export const notPublicText = (address: string): string => `${address} is not a public address (EVENTS_ALLOW_PRIVATE)`;

/** A URL's host when it is an address that is not public (`[::1]` as `::1`); null for a name or a public address. */
export function privateLiteral(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return null;
  }
  return isIP(host) !== 0 && !isPublicAddress(host) ? host : null;
}

/**
 * dns.lookup, refusing a name with any address that is not public (all are
 * refused, so that a connection never picks the private one of several).
 */
export const publicLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) {
      callback(error, '', 0);
      return;
    }
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused !== undefined || addresses.length === 0) {
      const why = new Error(notPublicText(refused?.address ?? hostname)) as NodeJS.ErrnoException;
      callback(why, '', 0);
      return;
    }
    if (options.all === true) callback(null, addresses);
    else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
  });
};
