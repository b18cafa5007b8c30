/**
 * `inseam worker`'s refusals (it needs the shared PostgreSQL store and sane settings) and how it
 * words its activity for a person. Running workers — killed, stopped, resumed — is
 * queue/cluster.test.ts's, which starts this command in child processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../../platform/__fixtures__/platforms.js';
import type { WorkerActivity } from '../../queue/index.js';
import { cli } from './__fixtures__/cli.js';
import { describeActivity } from './worker.js';

let dataDir: string;

beforeAll(async () => {
  dataDir = await tempDir('cli-worker');
});

afterAll(async () => {
  await removeDir(dataDir);
});

describe('inseam worker', () => {
  it('refuses to run without the shared PostgreSQL store, saying how to name it', async () => {
    const run = await cli(dataDir, ['worker']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--store postgres://');
    expect(run.stderr).toContain('INSEAM_DATABASE_URL');
    expect(run.stderr).toContain('[invalid_argument]');
    expect((await cli(dataDir, ['--store', '/tmp/inseam.db', 'worker'])).code).toBe(2);
  });

  it('refuses settings out of range before it connects anywhere', async () => {
    const store = ['--store', 'postgres://inseam@127.0.0.1:1/none'];
    for (const args of [
      ['--concurrency', '0'],
      ['--concurrency', 'many'],
      ['--lease-timeout', '0.5'],
      ['--lease-timeout', '-3'],
      ['--poll-interval', '0.01'],
      ['--batch-size', '1.5'],
      ['--hosts', 'local'],
    ]) {
      const run = await cli(dataDir, [...store, 'worker', ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toContain(args[0]);
    }
  });

  it('answers unavailable (exit 3) when the database cannot be reached, without the URL or its password', async () => {
    const run = await cli(dataDir, ['--store', 'postgres://inseam:hunter2@127.0.0.1:1/none', 'worker']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('[unavailable]');
    expect(run.stderr).not.toContain('hunter2');
  });

  it('words each step for a person', () => {
    const at = Date.UTC(2026, 0, 1);
    const line = (activity: WorkerActivity): string | null => describeActivity(activity);
    expect(line({ type: 'crawl-started', at, worker: 'w1', host: 'home/notes', job: 'j', mode: 'full', reason: 'lost' })).toBe('crawling home/notes (full, lost)');
    expect(line({ type: 'started', at, worker: 'w1', machine: 'm', pid: 9, concurrency: 2, serves: 'remote' })).toBe('worker w1 on m (pid 9) takes up to 2 jobs at once, of hosts that need no folder on this machine');
    expect(line({ type: 'started', at, worker: 'w1', machine: 'm', pid: 9, concurrency: 2, serves: 'all' })).toBe('worker w1 on m (pid 9) takes up to 2 jobs at once');
    expect(
      line({ type: 'crawl-ended', at, worker: 'w1', host: 'home/notes', job: 'j', run: 7, mode: 'full', state: 'failed', entries: 12, error: { code: 'permission_denied', message: 'token revoked' } }),
    ).toBe('crawled home/notes: failed, 12 entries (run 7) — token revoked [permission_denied]');
    expect(line({ type: 'forwarded', at, worker: 'w1', host: 'home/notes', job: 'j', to: 'w2' })).toBe('passed a job for home/notes to worker w2, which holds it');
    expect(line({ type: 'reaped', at, worker: 'w1', dead: 'w9', resumed: 2, deadLettered: 1 })).toBe('worker w9 is gone: 2 of its jobs queued again, 1 moved to the dead letter');
    expect(line({ type: 'scheduled', at, worker: 'w1', queued: 0 })).toBeNull();
    expect(line({ type: 'scheduled', at, worker: 'w1', queued: 3 })).toBe('queued 3 scheduled syncs');
    expect(line({ type: 'lease-lost', at, worker: 'w1', next: 'w2' })).toContain('joined again as w2');
  });
});
