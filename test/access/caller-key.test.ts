// The caller of the budgets when no credentials were accepted: the address, an IPv6 one by its /64.
import { callerKey } from '../../src/access/caller-key';

describe('callerKey', () => {
  it.each([
    ['203.0.113.5', '203.0.113.5'],
    ['::ffff:203.0.113.5', '203.0.113.5'],
    ['2001:db8:aa:bb:1:2:3:4', '2001:db8:aa:bb::/64'],
    ['2001:0DB8:00aa:00bb::4', '2001:db8:aa:bb::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['2001:db8:1:2:3:4:192.0.2.1', '2001:db8:1:2::/64'],
  ])('%s is counted as %s', (address, key) => {
    expect(callerKey(address)).toBe(key);
  });

  it('gives one key to every address of a /64 and different keys to neighbouring /64s', () => {
    const keys = new Set(
      Array.from({ length: 1000 }, (_, i) => callerKey(`2001:db8:aa:bb:${i.toString(16)}:${(i * 7).toString(16)}::1`)),
    );
    expect([...keys]).toEqual(['2001:db8:aa:bb::/64']);
    expect(callerKey('2001:db8:aa:bc::1')).not.toBe(callerKey('2001:db8:aa:bb::1'));
  });

  it('names an unknown address', () => {
    expect(callerKey(null)).toBe('unknown');
  });
});
