import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { PlatformPaths, resolveDataDir } from './data-dir.js';

describe('resolveDataDir', () => {
  it('takes --data, then INSEAM_DATA_DIR, then an absolute XDG_DATA_HOME, then ~/.local/share', () => {
    const env = { INSEAM_DATA_DIR: '/from/env', XDG_DATA_HOME: '/xdg', HOME: '/home/ann' };
    expect(resolveDataDir({ dataDir: '/from/flag', env })).toBe('/from/flag');
    expect(resolveDataDir({ env })).toBe('/from/env');
    expect(resolveDataDir({ env: { ...env, INSEAM_DATA_DIR: '' } })).toBe('/xdg/inseam');
    expect(resolveDataDir({ env: { XDG_DATA_HOME: 'relative/xdg', HOME: '/home/ann' } })).toBe('/home/ann/.local/share/inseam');
    expect(resolveDataDir({ env: {} })).toBe(`${homedir()}/.local/share/inseam`);
  });

  it('makes a relative --data absolute and refuses a NUL byte', () => {
    expect(resolveDataDir({ dataDir: 'here', env: {} })).toBe(`${process.cwd()}/here`);
    expect(() => resolveDataDir({ dataDir: 'a\0b', env: {} })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});

describe('PlatformPaths', () => {
  it('keeps every network under networks/, refusing a slug that could leave it', () => {
    const paths = new PlatformPaths('/data');
    expect(paths.networkRoot('home')).toBe('/data/networks/home');
    expect(paths.padDir('home')).toBe('/data/networks/home/pad');
    for (const bad of ['..', '../etc', 'a/b', '']) expect(() => paths.networkRoot(bad)).toThrow(expect.objectContaining({ code: 'invalid_uri' }));
  });
});
