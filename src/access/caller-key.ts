// Who a caller is, for the budgets (`limit`, `enumeration`) when it sent no
// accepted credentials: its address, and for IPv6 the /64 it belongs to. One
// IPv6 host is usually given a whole /64, so counting per address would give a
// single caller 2^64 fresh allowances and let it fill the trackers' memory
// (docs/access-limits.md).
import { isIP } from 'node:net';

export function callerKey(address: string | null): string {
  if (address === null) return 'unknown';
  const plain = address.split('%')[0];
  if (isIP(plain) !== 6) return plain;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(plain);
  if (mapped !== null) return mapped[1];
  return `${firstHextets(plain, 4).join(':')}::/64`;
}

/** The first `count` 16-bit groups of a valid IPv6 address, as lower-case hex without leading zeros. */
function firstHextets(address: string, count: number): string[] {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (part: string | undefined) => (part === undefined || part === '' ? [] : part.split(':'));
  const before = groups(head);
  // A dotted IPv4 tail (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) stands for two groups.
  const after = groups(tail).flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const full =
    tail === undefined
      ? before.flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]))
      : [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
  return full.slice(0, count).map((g) => parseInt(g, 16).toString(16));
}
