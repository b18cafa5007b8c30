/**
 * The multi-worker test: three `inseam worker` processes crawl twenty folder hosts at once from the
 * shared PostgreSQL store; one is killed with SIGKILL mid-crawl, after it committed a checkpoint.
 * Its leases lapse after the (short) lease timeout, the others reap it and resume its crawls from
 * their checkpoints. At the end the catalog is identical to a single-process crawl of the same
 * folders (every field of every entry, and the indexed text), no entry is lost or duplicated,
 * every host has exactly one run (the killed one resumed, not restarted), and no host was ever
 * crawled by two workers at once (from the workers' own activity logs, the killed worker's crawls
 * ending at the kill).
 *
 * The children run `inseam worker` from the TypeScript sources through the crawl tests' module hooks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/commands/__fixtures__/cli.js';
import { openPlatform } from '../platform/index.js';
import { PostgresStore, type EntryRecord, type HostRef } from '../store/index.js';
import { startTestPostgres, type TestPostgres } from '../store/postgres/__fixtures__/test-postgres.js';
import { QueueDatabase } from './database.js';
import { DEAD_QUEUE, SYNC_QUEUE } from './jobs.js';
import { HostQueue } from './queue.js';
import type { WorkerActivity } from './worker.js';

const MAIN = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
const HOOKS = new URL('../crawl/__fixtures__/ts-hooks.mjs', import.meta.url).href;
const REGISTER = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(HOOKS)});`;
const HOSTS = 20;
const FILES = 300;
const MASTER_KEY = randomBytes(32).toString('base64');

let server: TestPostgres;
let root: string;

beforeAll(async () => {
  server = await startTestPostgres();
  root = await mkdtemp(join(tmpdir(), 'inseam-cluster-'));
  for (let host = 0; host < HOSTS; host++) {
    const files: Promise<void>[] = [];
    for (let file = 0; file < FILES; file++) {
      const dir = join(root, 'hosts', `h${host}`, `d${file % 6}`);
      if (file < 6) await mkdir(dir, { recursive: true });
      // Text of varied size, a binary file now and then.
      const body = file % 17 === 0 ? Buffer.from([0, 1, 2, 255, host, file & 0xff]) : `host ${host} file ${file}\n${'lorem ipsum dolor '.repeat(1 + (file % 9))}\n`;
      files.push(writeFile(join(dir, `f${file}.${file % 17 === 0 ? 'bin' : 'txt'}`), body));
    }
    await Promise.all(files);
  }
});

afterAll(async () => {
  await server?.stop();
  await rm(root, { recursive: true, force: true });
});

const refs: HostRef[] = Array.from({ length: HOSTS }, (_, index) => ({ network: 'home', host: `h${index}` }));

async function addHosts(store: PostgresStore): Promise<void> {
  await store.networks.create({ slug: 'home' });
  for (const ref of refs) await store.hosts.create('home', { slug: ref.host, kind: 'fs', config: { root: join(root, 'hosts', ref.host) } });
}

interface Child {
  readonly process: ChildProcess;
  readonly pid: number;
  readonly activity: WorkerActivity[];
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

function startWorker(url: string, dataDir: string): Child {
  const child = spawn(
    process.execPath,
    ['--conditions=inseam-source', '--import', REGISTER, MAIN, '--data', dataDir, '--store', url, 'worker', '--concurrency', '2', '--lease-timeout', '2', '--poll-interval', '0.1', '--batch-size', '10', '--json'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '', HOME: dataDir, INSEAM_MASTER_KEY: MASTER_KEY } },
  );
  const activity: WorkerActivity[] = [];
  let pending = '';
  let errors = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (line.trim() !== '') activity.push(JSON.parse(line) as WorkerActivity);
  });
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { process: child, pid: child.pid!, activity, exit, stderr: () => errors };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs: number, children: readonly Child[]): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.\n${children.map((child) => child.stderr().slice(-1500)).join('\n---\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every stored field of every entry, and its indexed text, by path. */
async function catalogOf(store: PostgresStore, ref: HostRef): Promise<unknown[]> {
  const hostId = (await store.catalog.resolveHost(ref))!;
  const entries: EntryRecord[] = [];
  for (let after: string | undefined; ; ) {
    const page = await store.catalog.listEntries(hostId, { limit: 1000, ...(after === undefined ? {} : { after }) });
    entries.push(...page);
    if (page.length < 1000) break;
    after = page[page.length - 1]!.path;
  }
  return Promise.all(
    entries.map(async ({ id: _id, hostId: _host, seenRun: _run, updatedAt: _updated, ...fields }) => ({
      ...fields,
      text: fields.contentState === 'indexed' ? await store.catalog.contentText(hostId, fields.path) : null,
    })),
  );
}

describe('three workers, twenty hosts, one worker killed mid-crawl', () => {
  it('end with the catalog of a single-process crawl, nothing lost or duplicated, no host crawled twice at once', async () => {
    const url = await server.createDatabase();
    const store = await PostgresStore.open({ url });
    const database = new QueueDatabase({ url });
    const children: Child[] = [];
    let queue: HostQueue | undefined;
    try {
      await addHosts(store);
      queue = await HostQueue.start({ database });
      for (const ref of refs) await queue.requestSync(ref);
      const dataDirs = await Promise.all([0, 1, 2].map((index) => mkdtemp(join(root, `worker${index}-`))));
      for (const dir of dataDirs) children.push(startWorker(url, dir));

      // The victim: the first worker seen with a crawl that has committed at least one checkpoint.
      const victim = await waitFor(
        'a crawl with a checkpoint to interrupt',
        async () => {
          for (const ref of refs) {
            const hostId = (await store.catalog.resolveHost(ref))!;
            const run = await store.catalog.unfinishedRun(hostId);
            if (run === null || run.state !== 'running' || run.counters.entries < 20 || run.counters.entries >= FILES) continue;
            const child = children.find((candidate) => run.owner?.startsWith(`${candidate.pid}@`));
            if (child !== undefined) return { child, ref, run };
          }
          return undefined;
        },
        40_000,
        children,
      );
      victim.child.process.kill('SIGKILL');
      const killedAt = Date.now();
      expect((await victim.child.exit).signal).toBe('SIGKILL');

      // Every host crawled to the end, and nothing left in the queue.
      await waitFor(
        'every crawl to complete',
        async () => {
          for (const ref of refs) {
            const hostId = (await store.catalog.resolveHost(ref))!;
            const [newest] = await store.catalog.listRuns(hostId, 1);
            if (newest?.state !== 'completed') return false;
          }
          const open = await database.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state < 'completed'`, [SYNC_QUEUE]);
          return open[0]!.n === 0;
        },
        45_000,
        children,
      );
      const survivors = children.filter((child) => child !== victim.child);
      for (const child of survivors) child.process.kill('SIGTERM');
      for (const child of survivors) expect(await child.exit).toEqual({ code: 0, signal: null });

      // `inseam status` tells what happened: two workers stopped, the killed one lost, nothing waiting or failing.
      const status = await cli(await mkdtemp(join(root, 'status-')), ['--store', url, 'status', '--json'], { env: { INSEAM_MASTER_KEY: MASTER_KEY } });
      expect(status.code, status.stderr).toBe(0);
      const report = JSON.parse(status.stdout) as { workers: { pid: number; stopReason: string }[]; queues: { queue: string; waiting: number; active: number }[]; failing: unknown[]; running: unknown[] };
      expect(report.workers.map((worker) => [worker.pid, worker.stopReason]).sort()).toEqual(children.map((child) => [child.pid, child === victim.child ? 'lost' : 'stopped']).sort());
      expect(report.queues.find((depth) => depth.queue === SYNC_QUEUE)).toMatchObject({ waiting: 0, active: 0 });
      expect(report.failing).toEqual([]);
      expect(report.running).toEqual([]);

      // The killed worker's crawl went on from its checkpoint in the same run, on another worker.
      const victimHostId = (await store.catalog.resolveHost(victim.ref))!;
      const victimRuns = await store.catalog.listRuns(victimHostId, 10);
      expect(victimRuns).toHaveLength(1);
      expect(victimRuns[0]).toMatchObject({ id: victim.run.id, state: 'completed' });
      const finished = survivors.flatMap((child) => child.activity).filter((event) => event.type === 'crawl-ended' && event.host === `home/${victim.ref.host}`);
      expect(finished).toEqual([expect.objectContaining({ run: victim.run.id, state: 'completed', entries: FILES })]);
      const reaped = survivors.flatMap((child) => child.activity).filter((event) => event.type === 'reaped');
      expect(reaped).toHaveLength(1);
      expect(reaped[0]).toMatchObject({ deadLettered: 0 });

      // Each host: one full run that stored each file once; no job failed or dead-lettered.
      for (const ref of refs) {
        const hostId = (await store.catalog.resolveHost(ref))!;
        const runs = await store.catalog.listRuns(hostId, 10);
        expect(runs.map((run) => [run.mode, run.state]), ref.host).toEqual([['full', 'completed']]);
        expect(runs[0]!.counters.entries, ref.host).toBe(FILES);
        expect(await store.catalog.countEntries(hostId), ref.host).toBe(FILES);
      }
      const states = await database.query<{ name: string; state: string }>(`SELECT name, state FROM pgboss.job WHERE name IN ($1, $2) AND state NOT IN ('completed', 'cancelled')`, [SYNC_QUEUE, DEAD_QUEUE]);
      expect(states).toEqual([]);

      // No host crawled by two workers at once: crawl intervals per host, the victim's open ones ending at the kill.
      const intervals = new Map<string, { worker: number; from: number; to: number }[]>();
      for (const child of children) {
        const open = new Map<string, number>();
        for (const event of child.activity) {
          if (event.type === 'crawl-started') open.set(event.host, event.at);
          if (event.type === 'crawl-ended' && open.has(event.host)) {
            intervals.set(event.host, [...(intervals.get(event.host) ?? []), { worker: child.pid, from: open.get(event.host)!, to: event.at }]);
            open.delete(event.host);
          }
        }
        for (const [host, from] of open) intervals.set(host, [...(intervals.get(host) ?? []), { worker: child.pid, from, to: child === victim.child ? killedAt : Infinity }]);
      }
      expect([...intervals.keys()].sort()).toEqual(refs.map((ref) => `home/${ref.host}`).sort());
      for (const [host, spans] of intervals) {
        for (const a of spans) for (const b of spans) if (a !== b && a.worker !== b.worker) expect(a.to <= b.from || b.to <= a.from, `${host} crawled by ${a.worker} and ${b.worker} at once`).toBe(true);
      }
      expect(intervals.get(`home/${victim.ref.host}`)!.map((span) => span.worker)).toContain(victim.child.pid);
      expect(new Set(survivors.flatMap((child) => child.activity.filter((event) => event.type === 'crawl-ended').map(() => child.pid))).size).toBe(2);

      // The same folders crawled by one process into another database: an identical catalog.
      const referenceUrl = await server.createDatabase();
      const referenceData = await mkdtemp(join(root, 'reference-'));
      const platform = await openPlatform({ dataDir: referenceData, env: { INSEAM_MASTER_KEY: MASTER_KEY }, storeUrl: referenceUrl });
      try {
        await addHosts(platform.store as PostgresStore);
        for (const ref of refs) expect((await (await platform.sync(ref)).result).state).toBe('completed');
        for (const ref of refs) {
          const reference = await catalogOf(platform.store as PostgresStore, ref);
          expect(reference).toHaveLength(FILES);
          expect(await catalogOf(store, ref), ref.host).toEqual(reference);
        }
      } finally {
        await platform.close();
      }
    } finally {
      for (const child of children) if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
      await queue?.stop();
      await database.close();
      await store.close();
    }
  }, 120_000);
});
