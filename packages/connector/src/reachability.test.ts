import { describe, expect, it } from 'vitest';
import { NotFoundError } from '@neuralis/package-system/contracts';
import * as reachabilityModule from './reachability.js';
import { Reachability } from './reachability.js';

describe('the cached reachability flag', () => {
  it('exports exactly its named API', () => {
    expect(Object.keys(reachabilityModule)).toEqual(['Reachability']);
  });

  it('checks once, then answers from the cache and refreshes in the background when stale', async () => {
    let now = 0;
    let checks = 0;
    let healthy = true;
    const reachability = new Reachability(
      async () => {
        checks += 1;
        if (!healthy) throw new NotFoundError('no bucket');
      },
      { freshMs: 1000, firstCheckTimeoutMs: 1000, reason: 'store_unreachable', now: () => now },
    );
    expect(await reachability.probe()).toEqual({ connected: true });
    expect(await reachability.probe()).toEqual({ connected: true });
    expect(checks).toBe(1);
    healthy = false;
    now = 2000;
    // Stale: the cached answer comes back at once while a refresh runs.
    expect(await reachability.probe()).toEqual({ connected: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(checks).toBe(2);
    expect(await reachability.probe()).toEqual({ connected: false, reason: 'store_unreachable', code: 'not_found' });
    reachability.reachable();
    expect(await reachability.probe()).toEqual({ connected: true });
  });

  it('does not wait on a hung first check longer than its limit', async () => {
    const reachability = new Reachability(() => new Promise<void>(() => {}), { freshMs: 1000, firstCheckTimeoutMs: 20, reason: 'store_unreachable' });
    expect(await reachability.probe()).toEqual({ connected: false, reason: 'store_unreachable', code: 'timeout' });
  });
});
