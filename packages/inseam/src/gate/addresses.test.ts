import { describe, expect, it } from 'vitest';
import { addressAllowed, classifyAddress, ipLiteral, pinnedLookup } from './addresses.js';
import type { AddressClass } from './addresses.js';

describe('address classes', () => {
  it.each<[string, AddressClass]>([
    ['93.184.216.34', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['192.0.2.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    // IPv6 forms that carry an IPv4 address take its class.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:93.184.216.34', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::a9fe:a9fe', 'metadata'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::93.184.216.34', 'public'],
    ['64:ff9b:1::1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:5db8:d822::1', 'public'],
    // Teredo: server 65.54.227.120 (public), client ~(0x3fff:fdd2) = 192.0.2.45 (reserved).
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    // Teredo whose obfuscated client is 127.0.0.1 (~7f00:0001 = 80ff:fffe).
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
    // Teredo whose server is 10.0.0.1.
    ['2001:0:a00:1:8000:63bf:a247:1cbd', 'private'],
    ['fe80::1%eth0', 'link_local'],
    ['not-an-ip', 'invalid'],
    ['0177.0.0.1', 'invalid'],
    ['2130706433', 'invalid'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('allows only public addresses unless the origin is approved as private', () => {
    for (const kind of ['loopback', 'private', 'link_local', 'cgnat', 'unique_local', 'reserved'] as const) {
      expect(addressAllowed(kind, false)).toBe(false);
      expect(addressAllowed(kind, true)).toBe(true);
    }
    expect(addressAllowed('public', false)).toBe(true);
  });

  it('never allows metadata, unspecified, multicast, broadcast or unparseable addresses, even approved', () => {
    for (const kind of ['metadata', 'unspecified', 'multicast', 'broadcast', 'invalid'] as const) expect(addressAllowed(kind, true)).toBe(false);
  });

  it('reads IP literals from URL hostnames', () => {
    expect(ipLiteral(new URL('http://2130706433/').hostname)).toEqual({ address: '127.0.0.1', family: 4 });
    expect(ipLiteral(new URL('http://[::ffff:127.0.0.1]/').hostname)).toEqual({ address: '::ffff:7f00:1', family: 6 });
    expect(ipLiteral('api.example.com')).toBeNull();
  });
});

describe('pinned lookup', () => {
  it('answers with the pinned address whatever name it is asked about, in both calling conventions', () => {
    const lookup = pinnedLookup({ address: '127.0.0.1', family: 4 });
    const all: unknown[] = [];
    lookup('rebound.example', { all: true }, (error, address) => all.push(error, address));
    expect(all).toEqual([null, [{ address: '127.0.0.1', family: 4 }]]);
    const single: unknown[] = [];
    lookup('other.example', {}, (error, address, family) => single.push(error, address, family));
    expect(single).toEqual([null, '127.0.0.1', 4]);
  });
});
