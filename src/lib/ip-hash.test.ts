/** addressKey: IPv4 alone, IPv6 by its /64, IPv4-mapped as IPv4; the hash follows the key. */
import { describe, expect, it } from 'vitest';
import { addressKey, hashIp } from './ip-hash.js';

describe('addressKey', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    [' 192.0.2.1 ', '192.0.2.1'],
    ['::1', '0:0:0:0::/64'],
    ['::2', '0:0:0:0::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['[2001:db8:1:2::9]', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::ffff:c000:201', '192.0.2.1'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['unknown', 'unknown'],
    ['1:2:3', '1:2:3'],
    ['1::2::3', '1::2::3'],
  ])('%s → %s', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });

  it('one hash for the addresses of a /64, another for the next /64; IPv4 hashes as before', async () => {
    const a = await hashIp('salt', '2001:db8:1:2::1');
    expect(await hashIp('salt', '2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe(a);
    expect(await hashIp('salt', '2001:db8:1:3::1')).not.toBe(a);
    expect(await hashIp('salt', '::ffff:192.0.2.1')).toBe(await hashIp('salt', '192.0.2.1'));
  });
});
