// CONSOLE_ALLOW as a BlockList (docs/security.md#the-console): the entries
// were checked when the configuration was read (src/config.ts).
import { BlockList, isIP } from 'node:net';

export function consoleAllowList(entries: readonly string[] | null): BlockList | null {
  if (entries === null) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}
