/**
 * The kill test's driver, shared by its SQLite and PostgreSQL halves: crawler processes are killed
 * with SIGKILL at random points — opening the store, migrating, listing, reading, committing,
 * sweeping — again and again on the same store, then resumed to completion. The catalog must end
 * identical to one clean crawl's. What "identical" reads (and what integrity means) is the store's
 * own `snapshot`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const CHILD = fileURLToPath(new URL('./crawl-child.ts', import.meta.url));
const HOOKS = new URL('./ts-hooks.mjs', import.meta.url).href;
const REGISTER = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(HOOKS)});`;
const COUNT = 3000;
const PAGE_DELAY_MS = 3;

interface ChildRun {
  readonly killed: boolean;
  readonly output: string;
  /** From `ready` to exit (ms). */
  readonly ms: number;
}

/** `store` is a SQLite file's path or a postgres:// URL; crawl-child.ts opens either. */
function runChild(store: string, pageSize: number, batchSize: number, killAfterMs?: number): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=inseam-source', '--import', REGISTER, CHILD, store, String(COUNT), String(pageSize), String(batchSize), String(PAGE_DELAY_MS)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    let readyAt = 0;
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (readyAt === 0 && output.includes('ready')) {
        readyAt = performance.now();
        if (killAfterMs !== undefined) timer = setTimeout(() => process.kill(child.pid!, 'SIGKILL'), killAfterMs);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - readyAt;
      if (signal === 'SIGKILL') resolve({ killed: true, output, ms });
      else if (code === 0) resolve({ killed: false, output, ms });
      else reject(new Error(`crawler child exited ${code}: ${errors.slice(0, 2000)}`));
    });
  });
}

export interface CatalogSnapshot {
  readonly entries: unknown[];
  readonly content: unknown[];
  readonly runs: unknown[];
}

export interface KillTarget {
  /** A new, empty store: a SQLite path or a postgres:// URL. */
  fresh(name: string): Promise<string>;
  /** The catalog's observable state, after asserting the store's own integrity checks. */
  snapshot(store: string): Promise<CatalogSnapshot>;
}

export async function killAndResume(target: KillTarget, killsWanted: number): Promise<void> {
  // A seeded generator, so a failure can be replayed.
  let seed = Number(process.env['INSEAM_KILL_SEED'] ?? Date.now() % 100_000);
  const random = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const startSeed = seed;

  const layouts = [
    { pageSize: 50, batchSize: 120 }, // several pages a transaction
    { pageSize: 80, batchSize: 30 }, // pages split over transactions
  ];
  const clean = new Map<number, { snapshot: CatalogSnapshot; ms: number }>();
  for (const [index, layout] of layouts.entries()) {
    const store = await target.fresh(`clean-${index}`);
    const { ms } = await runChild(store, layout.pageSize, layout.batchSize);
    clean.set(index, { snapshot: await target.snapshot(store), ms });
  }
  const reference = clean.get(0)!.snapshot;
  expect(reference.entries.length).toBeGreaterThan(2000);
  expect(reference.content.length).toBeGreaterThan(2000);
  // The layout changes how work is batched (and so the page count), never what is stored.
  expect(clean.get(1)!.snapshot.entries).toEqual(reference.entries);
  expect(clean.get(1)!.snapshot.content).toEqual(reference.content);

  let kills = 0;
  let scenario = 0;
  while (kills < killsWanted) {
    const index = scenario % layouts.length;
    const layout = layouts[index]!;
    const store = await target.fresh(`killed-${scenario}`);
    const span = clean.get(index)!.ms;
    for (let attempt = 0; attempt < 4; attempt++) {
      // Now and then early, while the store is opened and migrated; otherwise anywhere in the crawl.
      const delay = random() < 0.2 ? random() * 40 : random() * span;
      const run = await runChild(store, layout.pageSize, layout.batchSize, Math.floor(delay));
      if (run.killed) kills += 1;
      else break;
    }
    const final = await runChild(store, layout.pageSize, layout.batchSize);
    expect(final.output, `seed ${startSeed}`).toContain('done completed');
    expect(await target.snapshot(store), `scenario ${scenario}, seed ${startSeed}`).toEqual(clean.get(index)!.snapshot);
    scenario += 1;
    expect(scenario, 'kills never landed; the crawl is too short to interrupt').toBeLessThan(40);
  }
  expect(kills).toBeGreaterThanOrEqual(killsWanted);
}
