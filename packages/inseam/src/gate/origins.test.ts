import { describe, expect, it } from 'vitest';
import { hasErrorCode } from '@neuralis/package-system/contracts';
import { OriginAllowlist, parseOriginRule } from './origins.js';

const allows = (declared: string[], url: string): boolean => new OriginAllowlist(declared).allows(new URL(url));

describe('origin rules', () => {
  it('canonicalises scheme, host, IDN and default ports', () => {
    expect(parseOriginRule('HTTPS://API.Example.COM:443').text).toBe('https://api.example.com');
    expect(parseOriginRule('http://example.com:80/').text).toBe('http://example.com');
    expect(parseOriginRule('http://example.com:8080').text).toBe('http://example.com:8080');
    expect(parseOriginRule('https://BÜCHER.example').text).toBe('https://xn--bcher-kva.example');
    expect(parseOriginRule('https://*.Example.com').text).toBe('https://*.example.com');
    expect(parseOriginRule('http://0177.0.0.1:9').text).toBe('http://127.0.0.1:9');
  });

  it.each([
    ['https://api.example.com/v1', 'a path'],
    ['https://api.example.com?x=1', 'a query'],
    ['https://api.example.com#f', 'a fragment'],
    ['https://user:pw@api.example.com', 'credentials'],
    ['ftp://files.example.com', 'another scheme'],
    ['api.example.com', 'no scheme'],
    ['https://api.*.example.com', 'an inner wildcard'],
    ['https://a*.example.com', 'a partial wildcard'],
    ['https://*.com', 'a single-label wildcard'],
    ['https://*.127.0.0.1', 'a wildcard on an IP'],
    ['https://', 'no host'],
  ])('refuses %s (%s) with invalid_config', (declared) => {
    let caught: unknown;
    try {
      parseOriginRule(declared);
    } catch (error) {
      caught = error;
    }
    expect(hasErrorCode(caught, 'invalid_config')).toBe(true);
  });
});

describe('origin allowlist', () => {
  it('matches exact scheme, host and port only', () => {
    const declared = ['https://api.example.com'];
    expect(allows(declared, 'https://api.example.com/v1/x?y=1')).toBe(true);
    expect(allows(declared, 'https://api.example.com:443/')).toBe(true);
    expect(allows(declared, 'http://api.example.com/')).toBe(false);
    expect(allows(declared, 'https://api.example.com:8443/')).toBe(false);
    expect(allows(declared, 'https://api.example.com.evil.test/')).toBe(false);
    expect(allows(declared, 'https://evilapi.example.com/')).toBe(false);
    expect(allows(declared, 'https://x.api.example.com/')).toBe(false);
    expect(allows(declared, 'https://api.example.com./')).toBe(false);
  });

  it('compares hosts lowercased and punycoded', () => {
    expect(allows(['https://BÜCHER.example'], 'https://xn--bcher-kva.example/')).toBe(true);
    expect(allows(['https://xn--bcher-kva.example'], 'https://bücher.EXAMPLE/')).toBe(true);
    expect(allows(['https://bucher.example'], 'https://bücher.example/')).toBe(false);
  });

  it('lets a leading *. match subdomains at any depth but not the bare domain', () => {
    const declared = ['https://*.example.com'];
    expect(allows(declared, 'https://a.example.com/')).toBe(true);
    expect(allows(declared, 'https://a.b.example.com/')).toBe(true);
    expect(allows(declared, 'https://example.com/')).toBe(false);
    expect(allows(declared, 'https://badexample.com/')).toBe(false);
    expect(allows(declared, 'https://a.example.com.evil.test/')).toBe(false);
    expect(allows(declared, 'http://a.example.com/')).toBe(false);
    expect(allows(declared, 'https://a.example.com:444/')).toBe(false);
  });

  it('normalises legacy IPv4 forms on both sides', () => {
    expect(allows(['http://127.0.0.1:8080'], 'http://2130706433:8080/')).toBe(true);
    expect(allows(['http://2130706433:8080'], 'http://127.1:8080/')).toBe(true);
    expect(allows(['https://api.example.com'], 'http://0x7f.0.0.1/')).toBe(false);
  });
});
