/**
 * The probe cache: fresh answers without probing, stale answers at once with one background
 * refresh, a bounded wait for the first probe, and probes that hang or throw.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HostLiveness } from './liveness.js';
import type { HostStatus } from './types.js';

let clock: number;
let liveness: HostLiveness;

beforeEach(() => {
  vi.useFakeTimers();
  clock = 0;
  liveness = new HostLiveness({ ttlMs: 1000, timeoutMs: 5000, now: () => clock });
});

afterEach(() => {
  vi.useRealTimers();
});

const online: HostStatus = { state: 'online', probed: true };
const offline: HostStatus = { state: 'offline', reason: 'fs_unreachable', probed: true };

describe('HostLiveness', () => {
  it('answers fresh statuses from the cache and refreshes stale ones behind the answer, once', async () => {
    const probe = vi.fn(async () => online);
    expect(await liveness.check('h', probe, 100)).toMatchObject({ state: 'online', checkedAt: 0 });
    clock = 500;
    expect(await liveness.check('h', probe, 100)).toMatchObject({ state: 'online' });
    expect(probe).toHaveBeenCalledTimes(1);

    clock = 2000;
    let release: (status: HostStatus) => void = () => undefined;
    const slow = vi.fn(() => new Promise<HostStatus>((resolve) => (release = resolve)));
    const [first, second] = await Promise.all([liveness.check('h', slow, 100), liveness.check('h', slow, 100)]);
    expect([first.state, second.state]).toEqual(['online', 'online']);
    expect(slow).toHaveBeenCalledTimes(1);
    release(offline);
    await vi.runAllTimersAsync();
    expect(liveness.peek('h')).toMatchObject({ state: 'offline', reason: 'fs_unreachable', checkedAt: 2000 });
  });

  it('waits a bounded time for a first probe, then answers unknown and keeps the late result', async () => {
    let release: (status: HostStatus) => void = () => undefined;
    const pending = liveness.check('h', () => new Promise<HostStatus>((resolve) => (release = resolve)), 100);
    await vi.advanceTimersByTimeAsync(100);
    expect(await pending).toEqual({ state: 'unknown' });
    release(online);
    await vi.runAllTimersAsync();
    expect(liveness.peek('h')).toMatchObject({ state: 'online' });
  });

  it('counts a hanging probe as a timeout and a throwing one as unreachable', async () => {
    const hanging = liveness.refresh('hang', () => new Promise<HostStatus>(() => undefined));
    await vi.advanceTimersByTimeAsync(5000);
    expect(await hanging).toMatchObject({ state: 'offline', code: 'timeout' });
    expect(await liveness.refresh('throw', () => Promise.reject(new Error('boom')))).toMatchObject({ state: 'offline', reason: 'store_unreachable' });
  });

  it('lets a live call overrule the cache', () => {
    liveness.note('h', online);
    expect(liveness.note('h', offline)).toMatchObject({ state: 'offline' });
    expect(liveness.peek('h')).toMatchObject({ state: 'offline', checkedAt: 0 });
  });
});
