import { APP_ROOT_ENV as LOCAL_APP_ROOT_ENV } from '@inseam/connector-local';
import { describe, expect, it } from 'vitest';
import { APP_ROOT_ENV, BUILTIN_PACKAGES, builtinPackages } from './packages.js';

describe('the built-in packages', () => {
  it('are first-party and loaded lazily, so a command imports only the connectors it binds', () => {
    expect(builtinPackages().map(({ trust, lazy }) => ({ trust, lazy }))).toEqual(BUILTIN_PACKAGES.map(() => ({ trust: 'first-party', lazy: true })));
  });

  it('name the app root in the variable the local connector reads', () => {
    expect(APP_ROOT_ENV).toBe(LOCAL_APP_ROOT_ENV);
  });
});
